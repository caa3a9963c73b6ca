package mcp

import (
	"context"
	"encoding/json"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
)

// TestTimeoutArgument: studio_exec and studio_test take a bounded timeout
// in seconds (their defaults stated in the schema); other tools take none.
func TestTimeoutArgument(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    *commands.Definition
		args string
		want time.Duration
		err  string
	}{
		{commands.Exec, `{"script":"print(1)"}`, 0, ""},
		{commands.Exec, `{"script":"print(1)","timeout":5}`, 5 * time.Second, ""},
		{commands.Test, `{"root":"ReplicatedStorage.Tests","timeout":3600}`, time.Hour, ""},
		{commands.Exec, `{"script":"print(1)","timeout":3601}`, 0, "timeout must be a whole number of seconds from 1 to 3600"},
		{commands.Exec, `{"script":"print(1)","timeout":1.5}`, 0, "timeout must be a whole number"},
		{commands.State, `{"timeout":5}`, 0, `unknown property "timeout"`},
	} {
		in, err := decodeInput(tc.d, json.RawMessage(tc.args))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: %v, want %q", tc.d.Name, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || in.timeout != tc.want {
			t.Errorf("%s %s: timeout %v, err %v; want %v", tc.d.Name, tc.args, in.timeout, err, tc.want)
		}
	}
	for _, d := range []*commands.Definition{commands.Exec, commands.Test} {
		p := InputSchema(d)["properties"].(map[string]any)["timeout"].(map[string]any)
		if p["default"] != int(d.Timeout.Seconds()) || p["maximum"] != 3600 || !strings.Contains(p["description"].(string), "Default: ") {
			t.Errorf("%s: timeout schema %v", d.Name, p)
		}
	}
}

// TestTimeoutArgumentBoundsTheCall: a script that never finishes ends with
// the timeout the call chose, in the spec's words.
func TestTimeoutArgumentBoundsTheCall(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := fakeplugin.Start(fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Handler: fakeplugin.Studio})
	t.Cleanup(p.Close)
	if _, err := p.WaitWelcome(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs := w.client(t, Options{})
	res := call(t, cs, "studio_exec", map[string]any{"script": "task.wait(60)", "timeout": 1})
	if m := text(t, res); !res.IsError || m["error"] != "Script execution timed out after 1 second." {
		t.Fatalf("%+v", m)
	}
}

// TestGroupLeafToolName: a group's leaf is a tool of its own, named by its
// path.
func TestGroupLeafToolName(t *testing.T) {
	t.Parallel()
	leaf := commands.Define(commands.Spec[commands.NoArgs, commands.NoData]{
		Definition: commands.Definition{Name: "read", Group: &commands.Group{Name: "script"}, Summary: "Read a script."},
		Run: func(context.Context, *commands.Env, *commands.NoArgs) (*commands.Result, error) {
			return &commands.Result{}, nil
		},
	})
	if got := ToolName(leaf); got != "studio_script_read" {
		t.Fatalf("tool name %q", got)
	}
}
