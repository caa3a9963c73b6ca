package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/mcp"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/terminal"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// -update rewrites the golden files (kit.Golden reads it).
var _ = flag.Bool("update", false, "rewrite golden files")

// TestMain runs the tests in a config directory of their own: the
// commands they run in process must not touch the developer's real one.
func TestMain(m *testing.M) { kit.MainInConfigDir(m) }

// run runs the command line args, stdin empty.
func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	kit.UseConfigDir(t) // the in-process CLI resolves the test's token
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = Run(ctx, append([]string{"studio-bridge"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), err
}

// freePort is a free loopback port for the test's bridge; whatever the
// test runs in-process on it shares the test's token (kit.UseConfigDir).
func freePort(t *testing.T) string {
	t.Helper()
	kit.UseConfigDir(t)
	return strconv.Itoa(kit.FreePort(t))
}

// golden checks got against testdata/NAME.golden (kit.Golden; -update
// rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	kit.Golden(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

func TestHelpGolden(t *testing.T) {
	tests := map[string][]string{"help": {"--help"}}
	for _, c := range newApp(IO{}, new(error)).Commands {
		tests["help-"+c.Name] = []string{c.Name, "--help"}
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := run(t, args...)
			if err != nil || errOut != "" {
				t.Fatalf("%v, stderr %q", err, errOut)
			}
			golden(t, name, out)
		})
	}
}

// startPlugin starts a fake plugin of instance for the bridge the test
// starts on port.
func startPlugin(t *testing.T, port, instance string) *fakeplugin.Plugin {
	t.Helper()
	n, _ := strconv.Atoi(port)
	return kit.StartPlugin(t, fakeplugin.Config{Port: n, InstanceID: instance, PlaceName: "Test Place", PlaceID: 42})
}

func TestSessionsFromAOneShotHost(t *testing.T) {
	port := freePort(t)
	p := startPlugin(t, port, "A")
	defer p.Close()

	out, errOut, err := run(t, "--port", port, "sessions", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	var data commands.SessionsData
	if err := json.Unmarshal([]byte(out), &data); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if len(data.Sessions) != 1 || data.Sessions[0].InstanceID != "A" || data.Sessions[0].Context != protocol.ContextEdit {
		t.Fatalf("sessions: %+v", data.Sessions)
	}

	out, _, err = run(t, "sessions", "--port", port)
	if err != nil || !strings.HasPrefix(out, "INSTANCE\tCONTEXT\tSTATE\tPLACE\tSESSION\tUP\nA\tedit\tEdit\tTest Place (42)\t") {
		t.Fatalf("not a terminal, so a tab-separated table (%v):\n%q", err, out)
	}
}

func TestRenderSessionsAlignsForTerminals(t *testing.T) {
	now := time.Now()
	list := []protocol.SessionInfo{{SessionID: "s1", InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit, PlaceName: "P", ConnectedAt: now}}
	if got := commands.RenderSessions(list, now, true); !strings.HasPrefix(got, "INSTANCE  CONTEXT  STATE  PLACE  SESSION  UP\nA         edit     Edit   P      s1       0s\n") {
		t.Fatalf("aligned table:\n%s", got)
	}
	if got := commands.RenderSessions(list, now, false); got != "INSTANCE\tCONTEXT\tSTATE\tPLACE\tSESSION\tUP\nA\tedit\tEdit\tP\ts1\t0s\n" {
		t.Fatalf("tab-separated table: %q", got)
	}
}

// TestRegistryReachesEverySurface walks the registry: every command is a
// CLI command, a terminal dot-command (unless it runs until interrupted or is
// hidden), and, where MCP-exposed, a tool with an input and output schema.
func TestRegistryReachesEverySurface(t *testing.T) {
	app := newApp(IO{}, new(error))
	dots := map[string]bool{}
	for _, d := range terminal.DotCommands() {
		dots[d.Path()] = true
	}
	for _, d := range commands.All {
		cmd := app.Command(d.Name)
		if d.Group != nil {
			if parent := app.Command(d.Group.Name); parent != nil {
				cmd = parent.Command(d.Name)
			} else {
				cmd = nil
			}
		}
		if cmd == nil {
			t.Errorf("%s is not a CLI command", d.Path())
		}
		if !d.LongRunning && !d.Hidden && !dots[d.Path()] {
			t.Errorf("%s is not a terminal dot-command", d.Path())
		}
		if d.MCP {
			tool := mcp.Tool(d)
			if tool.Name != mcp.ToolName(d) || tool.Name != "studio_"+strings.ReplaceAll(d.Path(), " ", "_") || tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
				t.Errorf("%s: incomplete MCP tool %+v", d.Name, tool)
			}
		}
	}
}

func TestVersionFlagMatchesVersionCommand(t *testing.T) {
	flag, _, err := run(t, "--version")
	cmd, _, err2 := run(t, "version")
	if err != nil || err2 != nil || flag != cmd || !strings.HasPrefix(flag, "studio-bridge ") || !strings.Contains(flag, "protocol ") {
		t.Fatalf("--version %q (%v), version %q (%v)", flag, err, cmd, err2)
	}
}

// With no Studio on the port, every surface says which port it looked on
// and that the plugin's must match; with --wait, also how long it waited.
// The errors keep exit code 3 (a *bridge.ResolveError inside).
func TestNoSessionsNamesThePort(t *testing.T) {
	port := freePort(t)
	advice := "The plugin must use the same port (its Settings button shows it); choose this side's port with --port or STUDIO_BRIDGE_PORT."
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "print(1)"}, "No active sessions on port " + port + ". Is Studio running with the studio-bridge plugin installed? " + advice},
		{[]string{"exec", "print(1)", "--wait", "1s"}, "No active sessions on port " + port + " after waiting 1 second. "},
	} {
		_, _, err := run(t, append([]string{"--port", port}, tc.args...)...)
		var re *bridge.ResolveError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &re) || re.Kind != bridge.NoSessions {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	_, errOut, err := run(t, "--port", port, "sessions")
	if err != nil || errOut != commands.NoSessionsHint+"\nLooked on port "+port+". "+advice+"\n" {
		t.Errorf("sessions: %v, stderr %q", err, errOut)
	}
}
