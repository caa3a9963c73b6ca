package commands

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// --play and --run choose the same way for every playable command: the
// window's edit session is resolved (a test starts there) and the context
// asked for is kept in the arguments.
func TestRetargetTest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     playable
		in       protocol.Context
		resolve  protocol.Context // the target the adapter then resolves
		runsIn   protocol.Context // kept in the arguments
		wantsErr string
	}{
		{"exec without --play: unchanged", &ExecArgs{}, protocol.ContextClient, protocol.ContextClient, "", ""},
		{"test without --play: unchanged", &TestArgs{}, "", "", "", ""},
		{"exec --play: the server by default", &ExecArgs{Playtest: Playtest{Play: true}}, "", protocol.ContextEdit, protocol.ContextServer, ""},
		{"test --play: the server by default", &TestArgs{Playtest: Playtest{Play: true}}, "", protocol.ContextEdit, protocol.ContextServer, ""},
		{"test --play --context client", &TestArgs{Playtest: Playtest{Play: true}}, protocol.ContextClient, protocol.ContextEdit, protocol.ContextClient, ""},
		{"test --run --context server", &TestArgs{Playtest: Playtest{Run: true}}, protocol.ContextServer, protocol.ContextEdit, protocol.ContextServer, ""},
		{"test --run --context client", &TestArgs{Playtest: Playtest{Run: true}}, protocol.ContextClient, "", "", "test: a Run test (--run) has no client DataModel"},
		{"exec --play --context edit", &ExecArgs{Playtest: Playtest{Play: true}}, protocol.ContextEdit, "", "", "exec: with --play or --run it runs in the test"},
		{"test --play --run", &TestArgs{Playtest: Playtest{Play: true, Run: true}}, "", "", "", "test: --play and --run are exclusive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := retargetTest(tc.args.playChoice(), bridge.Target{Context: tc.in})
			if tc.wantsErr != "" {
				var ue UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantsErr) {
					t.Fatalf("%v, want a usage error saying %q", err, tc.wantsErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Context != tc.resolve || *tc.args.playChoice().context != tc.runsIn {
				t.Fatalf("resolves %q, runs in %q; want %q, %q", got.Context, *tc.args.playChoice().context, tc.resolve, tc.runsIn)
			}
		})
	}
}

// playable arguments can run in a playtest (--play, --run).
type playable interface{ playChoice() playChoice }

// Every surface goes through Retarget, also one attached to a session (the
// terminal): --play and --run together are refused before anything runs.
func TestInvokeRefusesPlayAndRunWhenAttached(t *testing.T) {
	t.Parallel()
	attached := protocol.SessionInfo{SessionID: "s1", InstanceID: "A", Context: protocol.ContextEdit}
	o := Invoke(context.Background(), Request{Command: Test, Session: &attached,
		Args: &TestArgs{Root: "ReplicatedStorage.Tests", Runner: "testez", Reporter: "text", Playtest: Playtest{Play: true, Run: true}}})
	if o.Kind != Usage || !strings.Contains(o.Err.Error(), "exclusive") {
		t.Fatalf("%v: %v", o.Kind, o.Err)
	}
}

// A refused --play leaves the test it found alone: with the window already
// in a test (the user's own play start), exec --play and test --play answer
// "already in Play mode" and send nothing to the test's sessions (no play
// stop, no exec), which stay connected. The window is three fake plugins:
// its edit, server and client DataModels, in Play.
func TestRefusedPlayLeavesTheTestRunning(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	b := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 300 * time.Millisecond})
	t.Cleanup(b.Kill)
	plugins := map[protocol.Context]*fakeplugin.Plugin{}
	for _, c := range []protocol.Context{protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient} {
		plugins[c], _ = kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Context: c, State: protocol.StatePlay, Handler: fakeplugin.Studio})
	}
	edit, err := b.Resolve(context.Background(), bridge.Target{Context: protocol.ContextEdit})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		d    *Definition
		args any
	}{
		{"exec --play", Exec, &ExecArgs{Script: "print(1)", Playtest: Playtest{Play: true}}},
		{"exec --run", Exec, &ExecArgs{Script: "print(1)", Playtest: Playtest{Run: true}}},
		{"test --play", Test, &TestArgs{Paths: []string{kit.Files(t, map[string]string{"a.spec.luau": "return function() it(\"runs\", function() end) end"})}, Playtest: Playtest{Play: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &Env{Bridge: b, Session: edit, Stdout: io.Discard, Stderr: io.Discard}
			_, err := run(t, env, tc.d, tc.args)
			var refused *NotStartedError
			if protocol.CodeOf(err) != protocol.CodeBusy || !errors.As(err, &refused) ||
				!strings.Contains(err.Error(), "Studio is already in Play mode; run `studio-bridge play stop` first.") {
				t.Fatalf("%v, want the BUSY refusal", err)
			}
			for c, p := range plugins {
				if got := p.Requests(); len(got) != 0 {
					t.Errorf("the %s DataModel was sent %d requests (first: %s)", c, len(got), got[0].Action)
				}
			}
			in, err := window(context.Background(), b, "A")
			if err != nil || windowState(in) != protocol.StatePlay || len(in.Sessions) != 3 {
				t.Fatalf("after the refusal the window is %s with %d sessions (%v), want Play with 3", windowState(in), len(in.Sessions), err)
			}
		})
	}
}

// The plugin's own refusal (a test the host has not seen yet: BUSY) is a
// refusal too: nothing started, so nothing is stopped or waited for.
func TestPluginRefusalStartsNothing(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	b := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 300 * time.Millisecond})
	t.Cleanup(b.Kill)
	p, _ := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(action string, payload json.RawMessage) fakeplugin.Reply {
		if action == "play" {
			return fakeplugin.Reply{Err: &protocol.Error{Code: protocol.CodeBusy, Message: "Studio is already running a test; stop it first."}}
		}
		return fakeplugin.Studio(action, payload)
	}})
	edit, err := b.Resolve(context.Background(), bridge.Target{})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Bridge: b, Session: edit, Stdout: io.Discard, Stderr: io.Discard}
	_, err = run(t, env, Exec, &ExecArgs{Script: "print(1)", Playtest: Playtest{Play: true}})
	var refused *NotStartedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "already running a test") {
		t.Fatalf("%v, want the plugin's refusal", err)
	}
	if got := p.Requests(); len(got) != 1 || got[0].Action != "play" {
		t.Fatalf("requests %v, want the one play start", got)
	}
}
