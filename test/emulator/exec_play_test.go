package emulator_test

// exec --play / --run end to end: the test starts, the script runs in it
// with live output, the test ends, and the exit code is the script's —
// with the window back in Edit after success, a script error, a timeout
// and (interrupt_test.go) an interrupt.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/test/kit"
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

	// MCP's studio_exec takes the same choice
	cs := mcpSession(t, port)
	out, isErr := mcpCall(t, cs, "studio_exec", map[string]any{"script": `return game:GetService("RunService"):IsServer()`, "play": true})
	if isErr || out["success"] != true || !strings.Contains(mustJSONString(out["returnValues"]), "true") {
		t.Errorf("studio_exec play: %v (error %v)", out, isErr)
	}
	backInEdit(t, b, "E2E-EXEC-PLAY")
}

func mustJSONString(v any) string { return string(mustJSON(v)) }

// A window already in a test (the user's own play start) refuses --play
// and --run on every surface, and the test keeps running: the refusal
// ends nothing it did not start.
func TestRefusedPlayLeavesTheTestRunning(t *testing.T) {
	port, _, b, _ := editWindow(t, "E2E-PLAY-REFUSED")
	const refusal = "Studio is already in %s mode; run `studio-bridge play stop` first."
	stillIn := func(t *testing.T, state, contexts string) {
		t.Helper()
		if d, stderr, code := playJSON(t, port, "status"); code != 0 || d.State != state || d.contexts() != contexts {
			t.Fatalf("play status after the refusal: exit %d, %+v (want %s with %s), stderr %q", code, d, state, contexts, stderr)
		}
	}
	if d, stderr, code := playJSON(t, port, "start"); code != 0 || d.State != "Play" {
		t.Fatalf("play start: exit %d, %+v, %s", code, d, stderr)
	}

	t.Run("CLI", func(t *testing.T) {
		specs := kit.Files(t, map[string]string{"a.spec.luau": `return function() it("runs", function() end) end`})
		for _, args := range [][]string{{"exec", "--play", "print(1)"}, {"exec", "--run", "print(1)"}, {"test", "--play"}} {
			stdout, stderr, code := cliIn(t, specs, port, args...)
			if code != 1 || stdout != "" || !strings.Contains(stderr, fmt.Sprintf(refusal, "Play")) {
				t.Errorf("%v during a test: exit %d (want 1)\nstdout %q\nstderr %q", args, code, stdout, stderr)
			}
			stillIn(t, "Play", "edit,server,client")
		}
	})

	t.Run("terminal", func(t *testing.T) {
		stdout, stderr, code := terminalPipedCode(t, port, ".exec --play print(1)\n.play status\n")
		if code != 1 || !strings.Contains(stderr, fmt.Sprintf(refusal, "Play")) || !strings.Contains(stdout, "State:  Play") {
			t.Errorf(".exec --play during a test: exit %d (want 1: an entry failed)\nstdout %q\nstderr %q", code, stdout, stderr)
		}
		stillIn(t, "Play", "edit,server,client")
	})

	if d, stderr, code := playJSON(t, port, "stop"); code != 0 || d.State != "Edit" {
		t.Fatalf("play stop: exit %d, %+v, %s", code, d, stderr)
	}
	if d, stderr, code := playJSON(t, port, "start", "--mode", "run"); code != 0 || d.State != "Run" {
		t.Fatalf("play start --mode run: exit %d, %+v, %s", code, d, stderr)
	}

	t.Run("MCP", func(t *testing.T) {
		cs := mcpSession(t, port)
		for _, tool := range []struct {
			name string
			args map[string]any
		}{
			{"studio_exec", map[string]any{"script": "print(1)", "play": true}},
			{"studio_exec", map[string]any{"script": "print(1)", "run": true}},
		} {
			// the text is MCP's BUSY; the refusal itself is what matters here
			if out, isErr := mcpCall(t, cs, tool.name, tool.args); !isErr {
				t.Errorf("%s %v during a Run test: %v, want an error", tool.name, tool.args, out)
			}
			if out, isErr := mcpCall(t, cs, "studio_play", map[string]any{"action": "status"}); isErr || out["state"] != "Run" {
				t.Fatalf("studio_play status after %s %v: %v (error %v), want Run", tool.name, tool.args, out, isErr)
			}
		}
		stillIn(t, "Run", "edit,server")
	})

	if d, stderr, code := playJSON(t, port, "stop"); code != 0 || d.State != "Edit" {
		t.Fatalf("play stop: exit %d, %+v, %s", code, d, stderr)
	}
	backInEdit(t, b, "E2E-PLAY-REFUSED")
}

// A script that never yields freezes the server DataModel: the test cannot
// be ended, and exec --play says so and exits with the timeout code.
func TestExecPlayCannotEndTheTest(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-EXEC-FROZEN")
	stdout, stderr, code := cli(t, port, "--timeout", "2s", "exec", "--play", `while true do end`)
	// Which wait ended it is in the message, not the clock: the stop
	// request to the frozen server timed out on its own bound
	// (commands.EndTest: 10 seconds), not the whole StopTimeout or a hang.
	if code != 4 || stdout != "" || !strings.Contains(stderr, "Could not end the test, so Studio is still in it") ||
		!strings.Contains(stderr, "did not answer within 10 seconds") || !strings.Contains(stderr, "Stop it in Studio") {
		t.Errorf("exit %d (want 4)\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}
