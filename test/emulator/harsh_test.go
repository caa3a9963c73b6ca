package emulator_test

// The harsh pass: one window with the harshest settings the emulator has,
// all at once, and every everyday command still doing what it can, each
// degradation named where it bites. Run it alone with
// `go test -run TestHarsh ./test/emulator`; it is part of the suite.
//
// settings-nil:1 covers every key: the port travels in the installed
// plugin (pairing), so the window still registers on the test's port, and
// the plugin says once in Output that its settings do not read back.

import (
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestHarshPass(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "HARSH",
		"--fault", "settings-nil:1",
		"--no-plugins-in-test",
		"--foreign-streams", "2",
		"--fault", "recording-nil-in-play",
		"--fault", "capture-png",
		"--run-mode-client=false",
		"--team-create",
		"--fault", "error-and-closed",
		"--fault", "undo-destroyed",
		"--log-mirror")
	waitSessions(t, b, "HARSH", protocol.ContextEdit)

	// Settings that never read back: said once, quietly (a print, not a
	// warning per key), by the edit DataModel.
	const unreadable = "plugin settings do not read back in this Studio"
	kit.WaitFor(t, 30*time.Second, "the plugin to say its settings do not read back", func() bool {
		return strings.Contains(studio.Stdout.String(), unreadable)
	})

	// Edit: exec, query, logs and a screenshot work as ever.
	if stdout, stderr, code := cli(t, port, "exec", `print("harsh") return 1`); code != 0 || !strings.Contains(stdout, "harsh") {
		t.Fatalf("exec: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, stderr, code := cli(t, port, "query", "game.Workspace"); code != 0 || !strings.Contains(stdout, "Workspace") {
		t.Fatalf("query: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Undo cannot bring back what an exec destroyed (undo-destroyed): the
	// exec is still one recorded step, and Ctrl+Z undoes the rest of it.
	stdout, stderr, code := cli(t, port, "--json", "exec", `workspace.SpawnLocation.Name = "HarshRenamed" workspace.Effects:Destroy()`)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || !strings.Contains(lines[len(lines)-1], `"undoable":true`) {
		t.Fatalf("exec destroying: exit %d, stdout %q, stderr %q; want one undo step", code, stdout, stderr)
	}
	studio.Send(t, "undo")
	kit.WaitFor(t, 20*time.Second, "Ctrl+Z", func() bool {
		return strings.Contains(studio.Stderr.String(), "emulator: undo ")
	})
	if stdout, stderr, code := cli(t, port, "exec", `return workspace:FindFirstChild("SpawnLocation") ~= nil, workspace:FindFirstChild("Effects") == nil`); code != 0 || stdout != "true\ntrue\n" {
		t.Fatalf("after undo: exit %d, stdout %q, stderr %q; want the rename undone and the destroyed folder still gone", code, stdout, stderr)
	}

	// the edit DataModel renders while nothing plays
	checkPNGScreenshot(t, port)

	// A playtest runs no plugin: play start fails naming the setting, the
	// edit DataModel says so in Output, doctor fails the check.
	const setting = "Load User Plugins in Test Mode"
	if _, stderr, code := cli(t, port, "--timeout", "3s", "play", "start"); code == 0 || !strings.Contains(stderr, setting) {
		t.Fatalf("play start: exit %d, stderr %q; want a failure naming %q", code, stderr, setting)
	}
	d, code, stderr := doctorReport(t, port, "--active")
	if code != 1 {
		t.Fatalf("doctor exit %d (stderr %q); want 1: studio.pluginsInTest failed", code, stderr)
	}
	for key, want := range map[string]string{
		"studio.settings":        commands.StatusDegraded,
		"studio.pluginsInTest":   commands.StatusFailed,
		"studio.recordingInPlay": commands.StatusDegraded, // the test runs in Studio, plugin or not
		"studio.streams":         commands.StatusOK,       // 1 own + 2 foreign leave one of 4 for --active
	} {
		if c := statusOf(t, d, key, "HARSH"); c.Status != want {
			t.Errorf("%s = %+v; want %s", key, c, want)
		}
	}
	kit.WaitFor(t, 30*time.Second, "the edit DataModel's Output to name the setting", func() bool {
		return strings.Contains(studio.Stdout.String(), setting)
	})
	// After exec, query, a screenshot, play and doctor's probe (which
	// writes and reads a setting): still the one line, and no warning
	// about settings.
	out := studio.Stdout.String()
	if n := strings.Count(out, unreadable); n != 1 {
		t.Errorf("the settings line is in Output %d times; want once:\n%s", n, out)
	}
	if !strings.Contains(out, "[edit] [StudioBridge] "+unreadable) {
		t.Errorf("the settings line is not the edit DataModel's plain print:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "WARN") && (strings.Contains(line, "GetSetting") || strings.Contains(line, "SetSetting") || strings.Contains(line, "read back")) {
			t.Errorf("a settings warning in Output: %q", line)
		}
	}
}
