package emulator_test

// test --play / --run end to end: the specs run in the playtest's server
// (or client) DataModel, the test ends, and the exit code is the run's —
// with the window back in Edit after green and red runs, usage errors and a
// timeout, and (interrupt_test.go) an interrupt.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestTestPlay(t *testing.T) {
	const instance = "E2E-TEST-PLAYRUN"
	port, _, b := startWindow(t, "--quiet", "--instance", instance)
	waitSessions(t, b, instance, protocol.ContextEdit)

	for _, tc := range []struct {
		name string
		args []string
		code int
		want map[string]string // test name: status
	}{
		{"play, the server by default", []string{"--play", "play", "green"}, 0, map[string]string{"a playtest › runs in the server": "passed", "strings › reaches helpers two folders up": "passed"}},
		{"play, the client", []string{"--play", "--context", "client", "play"}, 0, map[string]string{"a playtest › runs in the client": "passed"}},
		{"run", []string{"--run", "play"}, 0, map[string]string{"a playtest › runs in the server": "passed"}},
		{"red", []string{"--play", "red", "broken"}, 1, map[string]string{"failing › compares numbers": "failed", "broken/syntax.spec.luau": "failed", "failing › passes": "passed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testRun(t, port, tc.code, tc.args...)
			got := byName(d)
			for name, status := range tc.want {
				if got[name].Status != status {
					t.Errorf("%s: %+v, want %s; all: %+v", name, got[name], status, d.Tests)
				}
			}
			backInEdit(t, b, instance)
			if l := leftovers(t, port); l != "" {
				t.Fatalf("left behind in edit: %s", l)
			}
		})
	}

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"a timeout", []string{"--play", "slow", "--timeout", "2s"}, 4, "timed out after 2 seconds"},
		{"--run has no client", []string{"--run", "--context", "client", "green"}, 2, "has no client DataModel"},
		{"not in edit", []string{"--play", "--context", "edit", "green"}, 2, "--context server (the default) or client"},
		{"not with --cloud", []string{"--play", "--cloud", "--root", "ReplicatedStorage.Tests"}, 2, "do not combine with --cloud"},
		{"no specs", []string{"--play", "green/shared"}, 2, "no specs found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := cliIn(t, specsDir, port, append([]string{"test"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout %q\nstderr %q, want it to contain %q", code, tc.code, out, errOut, tc.stderr)
			}
			backInEdit(t, b, instance)
		})
	}

	// back to back: each run leaves the window in Edit before it exits, so
	// the next --play finds it there
	for i := 0; i < 2; i++ {
		if d := testRun(t, port, 0, "--run", "play"); d.Passed != 1 {
			t.Fatalf("run %d: %+v", i, d)
		}
	}
	if _, stderr, code := cli(t, port, "exec", "--play", "print(1)"); code != 0 {
		t.Fatalf("exec --play right after test --run: exit %d, %s", code, stderr)
	}
	backInEdit(t, b, instance)

	// a window already in a test: test --play refuses and leaves it alone
	if _, stderr, code := cli(t, port, "play", "start"); code != 0 {
		t.Fatalf("play start: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cliIn(t, specsDir, port, "test", "--play", "green"); code != 1 || !strings.Contains(stderr, "already in Play mode") {
		t.Errorf("test --play during a test: exit %d, stderr %q", code, stderr)
	}
	if d, stderr, code := playJSON(t, port, "status"); code != 0 || d.State != "Play" {
		t.Errorf("the refused test --play ended the test: exit %d, %+v, stderr %q", code, d, stderr)
	}
	if _, stderr, code := cli(t, port, "play", "stop"); code != 0 {
		t.Fatalf("play stop: exit %d, %s", code, stderr)
	}
	backInEdit(t, b, instance)

	// MCP's studio_test takes the same choice
	cs := mcpSession(t, port)
	out, isErr := mcpCall(t, cs, "studio_test", map[string]any{"paths": []string{filepath.Join(specsDir, "play")}, "run": true})
	var d commands.TestData
	if err := json.Unmarshal(mustJSON(out), &d); err != nil || isErr || d.Passed != 1 || d.Tests[0].Name != "a playtest › runs in the server" {
		t.Errorf("studio_test run: %v (error %v, decode %v)", out, isErr, err)
	}
	backInEdit(t, b, instance)
}
