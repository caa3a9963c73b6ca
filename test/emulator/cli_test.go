package emulator_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/ptytest"
)

// TestTerminalInAPseudoTerminal types into `studio-bridge terminal`, run in
// a real pseudo-terminal, attached to an emulated Studio window: what a
// person sees.
func TestTerminalInAPseudoTerminal(t *testing.T) {
	requireSetup(t)
	port := kit.FreePort(t)
	startServe(t, "serve", port)
	kit.Studio(t, "studio", port, "--quiet")
	scr, keys, ctrlD := startTerminal(t, port)

	scr.WaitFor(t, fmt.Sprintf("%s [edit]> ", fixture.Place.Name))
	for _, step := range []struct {
		keys string
		see  []string // what the screen must show next, in order
	}{
		{`print("hello from the terminal")` + "\r", []string{"hello from the terminal"}},
		{"for i = 1, 3 do\r", []string{"...> "}},
		{"print(\"row \" .. i * 10)\rend\r", []string{"row 30"}},
		{"warn(\"careful\") return workspace.SpawnLocation.Position\r", []string{"careful", "Vector3(0, 4, 0)"}},
		{"error(\"boom\")\r", []string{"script error"}},
		{".state\r", []string{"State:  Edit"}},
		{".query Workspace.SpawnLocation --properties Position\r", []string{"Position = Vector3(0, 4, 0)"}},
		{".logs 5\r", []string{"[Warning] careful"}},
	} {
		keys(step.keys)
		for _, want := range step.see {
			scr.WaitFor(t, want)
		}
	}

	keys("while true do task.wait(0.05) end\r")
	time.Sleep(300 * time.Millisecond)
	keys("\x03")
	scr.WaitFor(t, "cancelled")
	keys("print(\"still alive\")\r")
	scr.WaitFor(t, "still alive")

	ctrlD()
}

// TestTerminalReattachesAfterPlayRestarts: the terminal attached to the
// server DataModel of a Play session; Play stops and starts again, so the
// server has a new session id. The next input re-attaches to the new
// server session and runs there, rather than answering "Session not
// found" for ever.
func TestTerminalReattachesAfterPlayRestarts(t *testing.T) {
	port, studio, b := startWindow(t, "--quiet", "--play", "--instance", "E2E-REATTACH")
	before := waitSessions(t, b, "E2E-REATTACH", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
	scr, keys, ctrlD := startTerminal(t, port)
	prompt := fmt.Sprintf("%s [server]> ", fixture.Place.Name)
	scr.WaitFor(t, prompt)

	studio.Send(t, "stop")
	waitSessions(t, b, "E2E-REATTACH", protocol.ContextEdit)
	studio.Send(t, "play")
	after := waitSessions(t, b, "E2E-REATTACH", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
	if after[protocol.ContextServer].SessionID == before[protocol.ContextServer].SessionID {
		t.Fatal("the server session kept its id across a Play restart")
	}
	keys(`print("server again: " .. tostring(game:GetService("RunService"):IsServer()))` + "\r")
	scr.WaitFor(t, fmt.Sprintf("re-attached to %s [server] (new session %s)", fixture.Place.Name, after[protocol.ContextServer].SessionID))
	scr.WaitFor(t, "server again: true")
	if strings.Contains(scr.String(), "Session not found") {
		t.Fatal("the stale session id leaked")
	}

	studio.Send(t, "stop")
	waitSessions(t, b, "E2E-REATTACH", protocol.ContextEdit)
	keys("print(1)\r")
	scr.WaitFor(t, "is gone and nothing replaces it: detached")
	scr.WaitFor(t, "studio-bridge> ")
	ctrlD()
}

// TestLaunchStartsStudio points --studio-path at a script that starts an
// emulated Studio window, as the real executable would start Studio.
func TestLaunchStartsStudio(t *testing.T) {
	requireSetup(t)
	port := kit.FreePort(t)
	script := filepath.Join(t.TempDir(), "RobloxStudio")
	// launch starts this wrapper as it would start Studio; it execs the
	// emulator, which cleanup stops
	kit.StudioScript(t, script, nodePath, fmt.Sprintf(`%q --port "$STUDIO_BRIDGE_PORT" --place "$(basename "$1" .rbxl)" --quiet`,
		filepath.Join(emulatorD, "bin", "studio.mjs")))
	place := filepath.Join(kit.Files(t, map[string]string{"Obby.rbxl": "<roblox/>"}), "Obby.rbxl")

	out, errOut, code := cli(t, port, "launch", place, "--studio-path", script, "--wait", "30s")
	if code != 0 {
		t.Fatalf("launch exited %d:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "Studio is up: Obby [edit]") {
		t.Fatalf("launch printed:\n%s\nstderr:\n%s", out, errOut)
	}
}

// startTerminal runs `studio-bridge terminal --wait 20s` in a terminal of
// its own (ptytest.Start: a pseudo-terminal, or a pseudo console on Windows)
// against the host on port: its screen, a way to type, and Ctrl-D, which
// must end it cleanly.
func startTerminal(t *testing.T, port int) (scr *ptytest.Screen, keys func(string), ctrlD func()) {
	t.Helper()
	term := ptytest.Start(t, userCmd(t, "", port, "terminal", "--wait", "20s"))
	keys = func(s string) {
		t.Helper()
		term.Type(t, s)
	}
	ctrlD = func() {
		t.Helper()
		keys("\x04")
		if err := term.Wait(t, 10*time.Second); err != nil {
			t.Fatalf("terminal exited with %v", err)
		}
	}
	return term.Screen, keys, ctrlD
}
