package emulator_test

// doctor --active's playtest probe: in a window in Edit mode it says first
// that it starts a short playtest, checks whether the test's DataModels run
// the plugin (studio.pluginsInTest) and whether the edit DataModel records
// during it (studio.recordingInPlay), then stops it; where Studio runs no
// plugin in the test, it cannot stop it and says so.

import (
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestDoctorActiveStartsAPlaytest(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-ACT-REC", "--quiet", "--fault", "recording-nil-in-play")
	kit.Studio(t, "noplug", port, "--instance", "DOC-ACT-NOPLUG", "--quiet", "--no-plugins-in-test")
	waitSessions(t, b, "DOC-ACT-REC", protocol.ContextEdit)
	waitSessions(t, b, "DOC-ACT-NOPLUG", protocol.ContextEdit)

	// passive: no playtest is started, so nothing is known about one
	d, _, stderr := doctorReport(t, port)
	if strings.Contains(stderr, "playtest") {
		t.Fatalf("passive doctor spoke of a playtest: %q", stderr)
	}
	for _, w := range []string{"DOC-ACT-REC", "DOC-ACT-NOPLUG"} {
		for _, key := range []string{"studio.pluginsInTest", "studio.recordingInPlay"} {
			if c := statusOf(t, d, key, w); c.Status != commands.StatusNA {
				t.Errorf("passive %s [%s] = %+v; want n/a", key, w, c)
			}
		}
	}

	d, code, stderr := doctorReport(t, port, "--active")
	for _, w := range []string{"DOC-ACT-REC", "DOC-ACT-NOPLUG"} {
		if !strings.Contains(stderr, "starting a short playtest in window "+w) {
			t.Errorf("doctor --active did not say first that it starts a playtest in %s; stderr %q", w, stderr)
		}
	}
	if code != 1 {
		t.Errorf("doctor --active exit %d; want 1 (studio.pluginsInTest failed in DOC-ACT-NOPLUG)", code)
	}
	// the plugin runs in the test; the edit DataModel gets no recording
	if c := statusOf(t, d, "studio.pluginsInTest", "DOC-ACT-REC"); c.Status != commands.StatusOK || !strings.Contains(c.Detail, "doctor --active started") {
		t.Errorf("studio.pluginsInTest [DOC-ACT-REC] = %+v; want ok, from doctor's playtest", c)
	}
	if c := statusOf(t, d, "studio.recordingInPlay", "DOC-ACT-REC"); c.Status != commands.StatusDegraded {
		t.Errorf("studio.recordingInPlay [DOC-ACT-REC] = %+v; want degraded (--fault recording-nil-in-play)", c)
	}
	// doctor stopped the test it started
	waitSessions(t, b, "DOC-ACT-REC", protocol.ContextEdit)

	// no DataModel of the test runs the plugin: failed, naming the setting,
	// and the test doctor started is the user's to stop
	c := statusOf(t, d, "studio.pluginsInTest", "DOC-ACT-NOPLUG")
	if c.Status != commands.StatusFailed || !strings.Contains(c.Fix, "Load User Plugins in Test Mode") ||
		!strings.Contains(c.Detail, "could not stop") || !strings.Contains(c.Fix, "stop the playtest") {
		t.Errorf("studio.pluginsInTest [DOC-ACT-NOPLUG] = %+v; want failed, naming the setting and the test left running", c)
	}
	// recording still works in the edit DataModel during that test
	if c := statusOf(t, d, "studio.recordingInPlay", "DOC-ACT-NOPLUG"); c.Status != commands.StatusOK {
		t.Errorf("studio.recordingInPlay [DOC-ACT-NOPLUG] = %+v; want ok", c)
	}
}
