package emulator_test

// Play control end to end: `studio-bridge play start|stop|status` starts a
// playtest through the plugin (StudioTestService in the emulator), waits
// for the test's sessions, and ends it from the server DataModel; the same
// definition answers the terminal's .play and MCP's studio_play.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

type playData struct {
	State    string `json:"state"`
	Sessions []struct {
		Context string `json:"context"`
	} `json:"sessions"`
}

func (d playData) contexts() string {
	var out []string
	for _, s := range d.Sessions {
		out = append(out, s.Context)
	}
	return strings.Join(out, ",")
}

func playJSON(t *testing.T, port int, args ...string) (playData, string, int) {
	t.Helper()
	stdout, stderr, code := cli(t, port, append([]string{"--json", "play"}, args...)...)
	var d playData
	if code == 0 {
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("play %v: stdout %q: %v", args, stdout, err)
		}
	}
	return d, stderr, code
}

func TestPlayControlCLI(t *testing.T) {
	port, studio, _, _ := editWindow(t, "E2E-PLAY")

	if d, stderr, code := playJSON(t, port, "status"); code != 0 || d.State != "Edit" || d.contexts() != "edit" {
		t.Fatalf("status in Edit: exit %d, %+v, stderr %q", code, d, stderr)
	}
	d, stderr, code := playJSON(t, port, "start")
	if code != 0 || d.State != "Play" || d.contexts() != "edit,server,client" {
		t.Fatalf("play start: exit %d, %+v, stderr %q", code, d, stderr)
	}
	// the test's DataModels answer at once (start waited for them)
	if stdout, stderr, code := cli(t, port, "exec", "--context", "client", `print(game:GetService("RunService"):IsClient())`); code != 0 || stdout != "true\n" {
		t.Fatalf("exec in the client: exit %d, %q, %q", code, stdout, stderr)
	}
	// the running test holds no exec slot in the edit DataModel
	if stdout, stderr, code := cli(t, port, "exec", "--context", "edit", `print("edit free")`); code != 0 || stdout != "edit free\n" {
		t.Fatalf("exec in edit during the test: exit %d, %q, %q", code, stdout, stderr)
	}
	if d, _, code := playJSON(t, port, "status"); code != 0 || d.State != "Play" {
		t.Fatalf("status in Play: exit %d, %+v", code, d)
	}
	studio.Send(t, "pause") // the Pause button
	kit.WaitFor(t, 15*time.Second, "status Paused", func() bool {
		d, _, code := playJSON(t, port, "status")
		return code == 0 && d.State == "Paused"
	})
	studio.Send(t, "resume")
	kit.WaitFor(t, 15*time.Second, "status Play again", func() bool {
		d, _, code := playJSON(t, port, "status")
		return code == 0 && d.State == "Play"
	})
	if _, stderr, code := playJSON(t, port, "start"); code != 1 || !strings.Contains(stderr, "already in Play mode") {
		t.Fatalf("a second start: exit %d, stderr %q", code, stderr)
	}
	if d, stderr, code := playJSON(t, port, "stop"); code != 0 || d.State != "Edit" || d.contexts() != "edit" {
		t.Fatalf("play stop: exit %d, %+v, stderr %q", code, d, stderr)
	}

	d, stderr, code = playJSON(t, port, "start", "--mode", "run")
	if code != 0 || d.State != "Run" || d.contexts() != "edit,server" {
		t.Fatalf("play start --mode run: exit %d, %+v, stderr %q", code, d, stderr)
	}
	if stdout, _, code := cli(t, port, "play", "status"); code != 0 || !strings.Contains(stdout, "State:  Run") {
		t.Fatalf("status text in Run: exit %d, %q", code, stdout)
	}
	if d, stderr, code := playJSON(t, port, "stop"); code != 0 || d.State != "Edit" {
		t.Fatalf("stopping Run: exit %d, %+v, stderr %q", code, d, stderr)
	}
	if _, stderr, code := cli(t, port, "play", "stop"); code != 0 || !strings.Contains(stderr, "already in Edit mode") {
		t.Fatalf("stop in Edit: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := playJSON(t, port, "pause"); code != 2 {
		t.Fatalf("play pause: exit %d, stderr %q, want a usage error", code, stderr)
	}
}

// terminalPiped runs the terminal with input on stdin (not a terminal):
// stdout carries only what the commands answer. Every entry must succeed.
func terminalPiped(t *testing.T, port int, input string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, code := terminalPipedCode(t, port, input)
	if code != 0 {
		t.Fatalf("terminal: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	return stdout, stderr
}

// terminalPipedCode is terminalPiped for input that may fail: its exit
// code too (1 when an entry failed).
func terminalPipedCode(t *testing.T, port int, input string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := userCmd(t, "", port, "terminal", "--wait", "20s")
	cmd.Stdin = strings.NewReader(input)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("terminal: %v\nstdout %s\nstderr %s", err, out.String(), errOut.String())
	}
	return out.String(), errOut.String(), code
}

func TestPlayControlTerminal(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-PLAY-TERM")
	stdout, stderr := terminalPiped(t, port, ".play start\n.play status\n.play stop\n.play status\n")
	if got := strings.Count(stdout, "State:  Play"); got != 2 {
		t.Errorf("two answers in Play expected:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if got := strings.Count(stdout, "State:  Edit"); got != 2 {
		t.Errorf("two answers in Edit expected:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if !strings.Contains(stdout, "server") || !strings.Contains(stdout, "client") {
		t.Errorf("the Play answer lists the test's sessions:\n%s", stdout)
	}
}

func TestPlayControlMCP(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-PLAY-MCP")
	cs := mcpSession(t, port)

	out, isErr := mcpCall(t, cs, "studio_play", map[string]any{"action": "start", "mode": "run"})
	if isErr || out["state"] != "Run" {
		t.Fatalf("studio_play start run: %v (error %v)", out, isErr)
	}
	if out, isErr = mcpCall(t, cs, "studio_play", map[string]any{"action": "status"}); isErr || out["state"] != "Run" {
		t.Fatalf("studio_play status: %v (error %v)", out, isErr)
	}
	if out, isErr = mcpCall(t, cs, "studio_play", map[string]any{"action": "stop"}); isErr || out["state"] != "Edit" {
		t.Fatalf("studio_play stop: %v (error %v)", out, isErr)
	}
	if msg := mcpRefused(t, cs, "studio_play", map[string]any{"action": "jump"}); !strings.Contains(msg, "action must be one of start, stop, status") {
		t.Fatalf("studio_play with a bad action: %q, want invalid input naming the choices", msg)
	}

	// --read-only hides it: it mutates
	ro := mcpSession(t, port, "--read-only")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tools, err := ro.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "studio_play" || tool.Name == "studio_exec" {
			t.Errorf("--read-only offers %s", tool.Name)
		}
	}
	mcpRefused(t, ro, "studio_play", map[string]any{"action": "start"}) // an unknown tool there
}
