package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/mcp"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code = Run(ctx, append([]string{"studio-bridge"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (run go test ./cmd/studio-bridge -update if intended):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestHelpGolden(t *testing.T) {
	tests := map[string][]string{"help": {"--help"}}
	for _, c := range newApp(IO{}, new(error)).Commands {
		tests["help-"+c.Name] = []string{c.Name, "--help"}
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := run(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden(t, name, out)
		})
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"bogus"}, `unknown command "bogus"` + "\nusage: studio-bridge [global flags] <command> [arguments]; commands: sessions, state,"},
		{"unknown flag", []string{"sessions", "--bogus"}, "flag provided but not defined: -bogus\nusage: studio-bridge sessions [flags]; run `studio-bridge sessions --help`"},
		{"unknown flag, positionals", []string{"logs", "--bogus"}, "usage: studio-bridge logs [count] [flags]"},
		{"unknown global flag", []string{"--bogus", "sessions"}, "flag provided but not defined: -bogus\nusage: studio-bridge [global flags] <command> [arguments]"},
		{"bad log level", []string{"sessions", "--log-level", "loud"}, `--log-level "loud"`},
		{"bad context", []string{"call", "state", "--context", "moon"}, `unknown context "moon"`},
		{"missing positional", []string{"call"}, "call needs <action>"},
		{"extra positional", []string{"sessions", "extra"}, `unexpected argument "extra"`},
		{"bad payload", []string{"call", "state", "{nope"}, "payload is not valid JSON"},
		{"port zero", []string{"sessions", "--port", "0"}, "--port / STUDIO_BRIDGE_PORT: 0 is not a TCP port; use 1–65535"},
		{"port too large", []string{"sessions", "--port", "70000"}, "70000 is not a TCP port"},
		{"port negative", []string{"mcp", "--port", "-5"}, "-5 is not a TCP port"},
		{"mcp with --json", []string{"--json", "mcp"}, "--json does not apply to mcp"},
		{"mcp with --keep-alive", []string{"mcp", "--keep-alive"}, "--keep-alive does not apply to mcp"},
		{"head and tail", []string{"logs", "--head", "--tail"}, "logs: --head and --tail contradict each other"},
		{"query too deep", []string{"query", "Workspace", "-d", "100"}, "depth must be 0–10, got 100"},
		{"remote without a port", []string{"--remote", "nocolon", "sessions"}, `--remote / STUDIO_BRIDGE_REMOTE: "nocolon" is not HOST:PORT`},
		{"remote with a bad port", []string{"sessions", "--remote", "devhost:99999"}, `"devhost:99999" is not HOST:PORT`},
		{"negative timeout", []string{"--timeout", "-1s", "sessions"}, "--timeout: -1s is not a timeout"},
		{"zero timeout", []string{"state", "--timeout", "0s"}, "--timeout: 0s is not a timeout"},
		{"serve with --json", []string{"--json", "serve"}, "--json does not apply to serve"},
		{"terminal with --keep-alive", []string{"terminal", "--keep-alive"}, "--keep-alive does not apply to terminal"},
		{"version with --keep-alive", []string{"--keep-alive", "version"}, "--keep-alive does not apply to version: it does not join"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--port", freePort(t)}, tt.args...)
			if tt.name == "bad payload" || tt.name == "head and tail" || tt.name == "query too deep" {
				// Needs a session to get as far as the payload.
				port := args[1]
				p := startPlugin(t, port, "A")
				defer p.Close()
			}
			_, errOut, code := run(t, args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, ExitUsage, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Fatalf("stderr %q does not contain %q", errOut, tt.want)
			}
		})
	}
}

func startPlugin(t *testing.T, port, instance string) *fakeplugin.Plugin {
	n, _ := strconv.Atoi(port)
	return fakeplugin.Start(fakeplugin.Config{Port: n, InstanceID: instance, PlaceName: "Test Place", PlaceID: 42,
		RetryDelays: []time.Duration{50 * time.Millisecond}})
}

func TestSessionsFromAOneShotHost(t *testing.T) {
	port := freePort(t)
	p := startPlugin(t, port, "A")
	defer p.Close()

	out, errOut, code := run(t, "--port", port, "sessions", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var data commands.SessionsData
	if err := json.Unmarshal([]byte(out), &data); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if len(data.Sessions) != 1 || data.Sessions[0].InstanceID != "A" || data.Sessions[0].Context != protocol.ContextEdit {
		t.Fatalf("sessions: %+v", data.Sessions)
	}

	out, _, code = run(t, "sessions", "--port", port)
	if code != 0 || !strings.HasPrefix(out, "INSTANCE\tCONTEXT\tSTATE\tPLACE\tSESSION\tUP\nA\tedit\tEdit\tTest Place (42)\t") {
		t.Fatalf("not a terminal, so a tab-separated table (exit %d):\n%q", code, out)
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

func TestCallReportsResolverErrorsWithExit3(t *testing.T) {
	port := freePort(t)
	a, b := startPlugin(t, port, "A"), startPlugin(t, port, "B")
	defer a.Close()
	defer b.Close()
	_, errOut, code := run(t, "--port", port, "call", "state")
	if code != ExitNoSession {
		t.Fatalf("exit %d, want %d: %s", code, ExitNoSession, errOut)
	}
	for _, want := range []string{"Multiple Studio instances connected. Specify a sessionId.", "INSTANCE", "--session"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestExecLosesThePluginMidScript: the output printed so far, then a clear
// error and exit 3.
func TestExecLosesThePluginMidScript(t *testing.T) {
	port := freePort(t)
	n, _ := strconv.Atoi(port)
	p := fakeplugin.Start(fakeplugin.Config{Port: n, InstanceID: "A",
		RetryDelays: []time.Duration{50 * time.Millisecond},
		Handler: func(string, json.RawMessage) fakeplugin.Reply {
			return fakeplugin.Reply{Progress: []any{map[string]string{"level": "Print", "body": "halfway"}}, Drop: true}
		}})
	defer p.Close()
	out, errOut, code := run(t, "--port", port, "exec", "print('halfway') crash()")
	if code != ExitNoSession {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitNoSession, out, errOut)
	}
	if out != "halfway\n" || !strings.Contains(errOut, "disconnected before answering exec") {
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}
}

func TestScriptFileErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.luau")
	_ = os.WriteFile(empty, nil, 0o644)
	for _, tt := range []struct{ arg, want string }{
		{filepath.Join(dir, "missing.luau"), "does not exist"},
		{empty, "is empty"},
		{dir, "a directory"},
	} {
		_, errOut, code := run(t, "--port", freePort(t), "exec", tt.arg)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("exec %s: exit %d, stderr %q (want %q)", tt.arg, code, errOut, tt.want)
		}
	}
}

// TestRegistryReachesEverySurface walks the registry: every command is a
// CLI command, a terminal dot-command (unless it runs until interrupted or is
// hidden), and, where MCP-exposed, a tool with an input and output schema.
func TestRegistryReachesEverySurface(t *testing.T) {
	app := newApp(IO{}, new(error))
	dots := map[string]bool{}
	for _, d := range dotCommands() {
		dots[d.Name] = true
	}
	for _, d := range commands.All {
		if app.Command(d.Name) == nil {
			t.Errorf("%s is not a CLI command", d.Name)
		}
		if !d.LongRunning && !d.Hidden && !dots[d.Name] {
			t.Errorf("%s is not a terminal dot-command", d.Name)
		}
		if d.MCP {
			tool := mcp.Tool(d)
			if tool.Name != "studio_"+d.Name || tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
				t.Errorf("%s: incomplete MCP tool %+v", d.Name, tool)
			}
		}
	}
}

func TestVersionFlagMatchesVersionCommand(t *testing.T) {
	flag, _, code := run(t, "--version")
	cmd, _, code2 := run(t, "version")
	if code != 0 || code2 != 0 || flag != cmd || !strings.HasPrefix(flag, "studio-bridge ") || !strings.Contains(flag, "protocol ") {
		t.Fatalf("--version %q (exit %d), version %q (exit %d)", flag, code, cmd, code2)
	}
}
