package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/cli"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestMain runs the tests in a config directory of their own: the
// commands they run in process must not touch the developer's real one.
func TestMain(m *testing.M) { kit.MainInConfigDir(m) }

// run runs the command line args as the process would, stdin empty, and
// returns what it printed and its exit code.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	kit.UseConfigDir(t) // the in-process CLI resolves the test's token
	return runAsIs(t, args...)
}

// runAsIs is run in the process environment as the test left it.
func runAsIs(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code = mainRun(ctx, append([]string{"studio-bridge"}, args...), cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// freePort is kit.FreePort as the command line takes it.
func freePort(t *testing.T) string {
	t.Helper()
	return strconv.Itoa(kit.FreePort(t))
}

// startPlugin starts a fake plugin of instance for the bridge the test
// starts on port.
func startPlugin(t *testing.T, port, instance string) *fakeplugin.Plugin {
	t.Helper()
	n, _ := strconv.Atoi(port)
	return kit.StartPlugin(t, fakeplugin.Config{Port: n, InstanceID: instance, PlaceName: "Test Place", PlaceID: 42})
}

// TestExitCodes: each kind of error maps to the exit code the README
// documents, through wrapping.
func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("anything else"), exitFailure},
		{cli.Failure("script error: boom"), exitFailure},
		{commands.UsageError{Err: errors.New("bad flag")}, exitUsage},
		{fmt.Errorf("exec: %w", commands.UsageError{Err: errors.New("empty file")}), exitUsage},
		{&bridge.ResolveError{Kind: bridge.MultipleInstances}, exitNoSession},
		{&bridge.PortInUseError{}, exitNoSession},
		{protocol.Errorf(protocol.CodeSessionNotFound, "gone"), exitNoSession},
		{protocol.Errorf(protocol.CodeHostUnavailable, "no host"), exitNoSession},
		{protocol.Errorf(protocol.CodeTimeout, "slow"), exitTimeout},
		{protocol.Errorf(protocol.CodeCancelled, "cancelled"), exitInterrupted},
		{fmt.Errorf("waiting: %w", context.Canceled), exitInterrupted},
	} {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
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
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitUsage, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Fatalf("stderr %q does not contain %q", errOut, tt.want)
			}
		})
	}
}

func TestCallReportsResolverErrorsWithExit3(t *testing.T) {
	port := freePort(t)
	a, b := startPlugin(t, port, "A"), startPlugin(t, port, "B")
	defer a.Close()
	defer b.Close()
	_, errOut, code := run(t, "--port", port, "call", "state")
	if code != exitNoSession {
		t.Fatalf("exit %d, want %d: %s", code, exitNoSession, errOut)
	}
	for _, want := range []string{"Multiple Studio instances connected. Specify a sessionId.", "INSTANCE", "--session"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// TestExecLosesThePluginMidScript: the plugin's socket drops mid-script and
// the script's result is lost with it; the plugin comes back. The output
// printed so far, then a clear error (the outcome is unknown) and exit 3.
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
	if code != exitNoSession {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitNoSession, out, errOut)
	}
	if out != "halfway\n" || !strings.Contains(errOut, "no longer available") {
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
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("exec %s: exit %d, stderr %q (want %q)", tt.arg, code, errOut, tt.want)
		}
	}
}
