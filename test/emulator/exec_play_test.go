package emulator_test

// exec --play / --run end to end: the test starts, the script runs in it
// with live output, the test ends, and the exit code is the script's —
// with the window back in Edit after success, a script error, a timeout
// and (interrupt_test.go) an interrupt.

import (
	"strings"
	"testing"
	"time"
)

func TestExecPlay(t *testing.T) {
	port, _, b, _ := editWindow(t, "E2E-EXEC-PLAY")

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"play, the server by default", []string{"--play", `print("in", game:GetService("RunService"):IsServer(), game:GetService("Players"):FindFirstChild("Player1") ~= nil) return "done"`}, 0, "in true true\n\"done\"\n", ""},
		{"play, the client", []string{"--play", "--context", "client", `print(game:GetService("Players").LocalPlayer.Name)`}, 0, "Player1\n", ""},
		{"run", []string{"--run", `print(game:GetService("RunService"):IsRunMode(), game:GetService("RunService"):IsClient())`}, 0, "true true\n", ""},
		{"a script error", []string{"--play", `print("before") error("boom")`}, 1, "before\n", "boom"},
		{"a timeout (the script waits)", []string{"--timeout", "2s", "--play", `print("waiting") task.wait(60)`}, 4, "waiting\n", "timed out after 2 seconds"},
		{"--run has no client", []string{"--run", "--context", "client", `print(1)`}, 2, "", "has no client DataModel"},
		{"not in edit", []string{"--play", "--context", "edit", `print(1)`}, 2, "", "--context server (the default) or client"},
		{"not with --cloud", []string{"--play", "--cloud", `print(1)`}, 2, "", "do not combine with --cloud"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := cli(t, port, append([]string{"exec"}, tc.args...)...)
			if code != tc.code || stdout != tc.stdout || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout %q, want %q\nstderr %q, want it to contain %q", code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
			}
			backInEdit(t, b, "E2E-EXEC-PLAY")
		})
	}

	// a window already in a test: exec --play refuses and leaves it alone
	if _, stderr, code := cli(t, port, "play", "start"); code != 0 {
		t.Fatalf("play start: exit %d, %s", code, stderr)
	}
	if _, stderr, code := cli(t, port, "exec", "--play", "print(1)"); code != 1 || !strings.Contains(stderr, "already in Play mode") {
		t.Errorf("exec --play during a test: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := cli(t, port, "play", "stop"); code != 0 {
		t.Fatalf("play stop: exit %d, %s", code, stderr)
	}
	backInEdit(t, b, "E2E-EXEC-PLAY")

	// MCP's studio_exec takes the same choice
	cs := mcpSession(t, port)
	out, isErr := mcpCall(t, cs, "studio_exec", map[string]any{"script": `return game:GetService("RunService"):IsServer()`, "play": true})
	if isErr || out["success"] != true || !strings.Contains(mustJSONString(out["returnValues"]), "true") {
		t.Errorf("studio_exec play: %v (error %v)", out, isErr)
	}
	backInEdit(t, b, "E2E-EXEC-PLAY")
}

func mustJSONString(v any) string { return string(mustJSON(v)) }

// A script that never yields freezes the server DataModel: the test cannot
// be ended, and exec --play says so and exits with the timeout code.
func TestExecPlayCannotEndTheTest(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-EXEC-FROZEN")
	start := time.Now()
	stdout, stderr, code := cli(t, port, "--timeout", "2s", "exec", "--play", `while true do end`)
	if code != 4 || stdout != "" || !strings.Contains(stderr, "Could not end the test, so Studio is still in it") ||
		!strings.Contains(stderr, "Stop it in Studio") {
		t.Errorf("exit %d (want 4)\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("took %s", d)
	}
}
