package emulator_test

// studio-bridge doctor against emulated Studio windows: with the emulator's
// switches on, doctor names the matching degradation; without them the
// same checks are ok. Two windows share one host, so one doctor run shows
// both.

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// doctorReport runs `studio-bridge --json doctor args…` and decodes it.
func doctorReport(t *testing.T, port int, args ...string) (commands.DoctorData, int, string) {
	t.Helper()
	stdout, stderr, code := cli(t, port, append([]string{"--json", "doctor"}, args...)...)
	var d commands.DoctorData
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("doctor: exit %d, stdout %q, stderr %q: %v", code, stdout, stderr, err)
	}
	return d, code, stderr
}

// statusOf is the status of key for window ("" for a local check).
func statusOf(t *testing.T, d commands.DoctorData, key, window string) commands.Check {
	t.Helper()
	for _, c := range d.Checks {
		if c.Key == key && c.Window == window {
			return c
		}
	}
	t.Fatalf("doctor has no %s check for window %q: %+v", key, window, d.Checks)
	return commands.Check{}
}

func TestDoctorNamesEachEmulatedDegradation(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-PLAIN", "--quiet")
	kit.Studio(t, "harsh", port, "--instance", "DOC-HARSH", "--quiet",
		"--fault", "settings-nil:1", // settings that never read back (the port travels in the installed plugin)
		"--foreign-streams", "3", // Rojo and others hold 3 of the 4 streams
		"--no-plugin-connection-service")
	waitSessions(t, b, "DOC-PLAIN", protocol.ContextEdit)
	waitSessions(t, b, "DOC-HARSH", protocol.ContextEdit)

	d, code, stderr := doctorReport(t, port, "--active")
	if code != 0 {
		t.Fatalf("doctor exit %d with no failed check; stderr %q; %+v", code, stderr, d.Checks)
	}
	if !strings.Contains(stderr, "opens one extra web stream") {
		t.Fatalf("doctor --active did not say first what it does; stderr %q", stderr)
	}
	for _, c := range d.Checks {
		switch c.Status {
		case commands.StatusOK, commands.StatusDegraded, commands.StatusFailed, commands.StatusNA:
		default:
			t.Fatalf("check %s has status %q", c.Key, c.Status)
		}
	}
	for _, key := range []string{"host.port", "host.reachable", "host.version", "config.dir", "token.file"} {
		if c := statusOf(t, d, key, ""); c.Status != commands.StatusOK {
			t.Errorf("%s = %+v; want ok", key, c)
		}
	}
	for _, tc := range []struct{ key, plain, harsh string }{
		{"studio.settings", commands.StatusOK, commands.StatusDegraded},
		{"studio.streams", commands.StatusOK, commands.StatusDegraded},
		{"studio.pluginConnection", commands.StatusOK, commands.StatusDegraded},
		// --active plays a short test in the plain window; the harsh one
		// has no stream free for its test DataModels (no relay), so
		// doctor starts none there
		{"studio.pluginsInTest", commands.StatusOK, commands.StatusNA},
		{"studio.recordingInPlay", commands.StatusOK, commands.StatusNA},
		{"studio.runService", commands.StatusOK, commands.StatusOK},
		{"studio.sourceLimit", commands.StatusOK, commands.StatusOK},
	} {
		plain, harsh := statusOf(t, d, tc.key, "DOC-PLAIN"), statusOf(t, d, tc.key, "DOC-HARSH")
		if plain.Status != tc.plain || harsh.Status != tc.harsh {
			t.Errorf("%s: plain window %+v, harsh window %+v; want %s and %s", tc.key, plain, harsh, tc.plain, tc.harsh)
		}
		if harsh.Status == commands.StatusDegraded && harsh.Detail == "" {
			t.Errorf("%s degraded without saying what the plugin does instead", tc.key)
		}
	}
	// The harsh window's report, replayed: an emulator started with
	// --from-doctor shows the same degradations (settings-nil:1 included:
	// the port travels in the installed plugin).
	var replay commands.DoctorData
	for _, c := range d.Checks {
		if c.Window == "DOC-HARSH" {
			replay.Checks = append(replay.Checks, c)
		}
	}
	file := filepath.Join(t.TempDir(), "report.json")
	data, _ := json.Marshal(replay) // plain structs: cannot fail
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	kit.Studio(t, "replay", port, "--instance", "DOC-REPLAY", "--quiet", "--from-doctor", file)
	waitSessions(t, b, "DOC-REPLAY", protocol.ContextEdit)
	again, _, _ := doctorReport(t, port, "--active")
	for _, key := range []string{"studio.settings", "studio.streams", "studio.pluginConnection"} {
		if got, want := statusOf(t, again, key, "DOC-REPLAY"), statusOf(t, d, key, "DOC-HARSH"); got.Status != want.Status {
			t.Errorf("%s: replayed window %+v; the reported window was %s", key, got, want.Status)
		}
	}
}

func TestDoctorPassiveOpensNoStream(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-PASSIVE", "--quiet", "--foreign-streams", "3")
	waitSessions(t, b, "DOC-PASSIVE", protocol.ContextEdit)
	d, code, stderr := doctorReport(t, port)
	if code != 0 || strings.Contains(stderr, "extra web stream") {
		t.Fatalf("doctor: exit %d, stderr %q", code, stderr)
	}
	// passive: the cap is full, but doctor did not open a stream to learn it
	if c := statusOf(t, d, "studio.streams", "DOC-PASSIVE"); c.Status != commands.StatusOK || !strings.Contains(c.Detail, "--active") {
		t.Fatalf("studio.streams = %+v; want ok, pointing at --active", c)
	}
}

// A port held by another program fails host.reachable, says what to do,
// and doctor exits 1; the Studio checks are n/a (no host to ask), and no
// process became the host.
func TestDoctorPortHeldByAnotherProgram(t *testing.T) {
	requireSetup(t)
	stranger := httptest.NewServer(http.NotFoundHandler())
	defer stranger.Close()
	port := stranger.Listener.Addr().(*net.TCPAddr).Port
	d, code, _ := doctorReport(t, port)
	if code != 1 {
		t.Fatalf("doctor exit %d; want 1 (a check failed)", code)
	}
	if c := statusOf(t, d, "host.reachable", ""); c.Status != commands.StatusFailed || !strings.Contains(c.Fix, "--port") {
		t.Fatalf("host.reachable = %+v; want failed, naming --port", c)
	}
	if c := statusOf(t, d, "studio.settings", ""); c.Status != commands.StatusNA {
		t.Fatalf("studio.settings = %+v; want n/a without a host", c)
	}
}

// --no-plugins-in-test: Studio runs the playtest, but none of its
// DataModels runs the plugin. play start's error names the setting, the
// edit DataModel says so in Output after Main.TEST_REPORT_WAIT, and doctor
// fails studio.pluginsInTest with the same fix.
func TestNoPluginsInTestNamesTheSetting(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "DOC-NOTEST", "--no-plugins-in-test")
	waitSessions(t, b, "DOC-NOTEST", protocol.ContextEdit)
	const setting = "Load User Plugins in Test Mode"
	_, stderr, code := cli(t, port, "--timeout", "3s", "play", "start")
	if code == 0 || !strings.Contains(stderr, setting) {
		t.Fatalf("play start: exit %d, stderr %q; want a failure naming %q", code, stderr, setting)
	}
	kit.WaitFor(t, 30*time.Second, "the plugin's Output to name the setting", func() bool {
		return strings.Contains(studio.Stdout.String(), setting)
	})
	d, code, _ := doctorReport(t, port)
	c := statusOf(t, d, "studio.pluginsInTest", "DOC-NOTEST")
	if code != 1 || c.Status != commands.StatusFailed || !strings.Contains(c.Fix, setting) {
		t.Fatalf("doctor: exit %d, studio.pluginsInTest %+v; want failed (exit 1) naming %q", code, c, setting)
	}
}

// --fault recording-nil-in-play: during a playtest the edit DataModel gets
// no recording, so an exec there says undoable false, and doctor reports
// studio.recordingInPlay degraded (with the test's DataModels running the
// plugin: studio.pluginsInTest ok).
func TestRecordingRefusedInPlay(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-REC", "--quiet", "--fault", "recording-nil-in-play")
	edit := waitSessions(t, b, "DOC-REC", protocol.ContextEdit)[protocol.ContextEdit]
	if stdout, stderr, code := cli(t, port, "play", "start"); code != 0 {
		t.Fatalf("play start: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	waitSessions(t, b, "DOC-REC", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
	var r struct {
		Success  bool  `json:"success"`
		Undoable *bool `json:"undoable"`
	}
	mustCall(t, b, edit.SessionID, "exec", map[string]string{"script": "workspace.Name = workspace.Name"}, &r)
	if !r.Success || r.Undoable == nil || *r.Undoable {
		t.Fatalf("exec in edit during the test: %+v (undoable %v); want success, undoable false", r, r.Undoable)
	}
	d, _, _ := doctorReport(t, port)
	for key, want := range map[string]string{"studio.recordingInPlay": commands.StatusDegraded, "studio.pluginsInTest": commands.StatusOK} {
		if c := statusOf(t, d, key, "DOC-REC"); c.Status != want {
			t.Errorf("%s = %+v; want %s", key, c, want)
		}
	}
}

// --fault capture-png: a capture without a Format comes back as PNG bytes.
// The plugin asks for RGBA8 and checks BufferFormat, so the screenshot
// still works end to end.
func TestScreenshotAsksForRGBA8(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-PNG", "--quiet", "--fault", "capture-png")
	waitSessions(t, b, "DOC-PNG", protocol.ContextEdit)
	checkPNGScreenshot(t, port)
}

// --run-mode-client=false: RunService:IsClient() is false in Run mode's
// DataModel. The plugin still reports Run (IsRunMode and
// CanCaptureScreenshot) and still takes a screenshot there.
func TestRunModeWithoutIsClient(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "DOC-RUN", "--quiet", "--run-mode-client=false")
	waitSessions(t, b, "DOC-RUN", protocol.ContextEdit)
	studio.Send(t, "run")
	all := waitSessions(t, b, "DOC-RUN", protocol.ContextEdit, protocol.ContextServer)
	var r struct {
		Success      bool              `json:"success"`
		ReturnValues []json.RawMessage `json:"returnValues"`
	}
	mustCall(t, b, all[protocol.ContextServer].SessionID, "exec", map[string]any{"script": `return game:GetService("RunService"):IsClient()`}, &r)
	if !r.Success || len(r.ReturnValues) != 1 || string(r.ReturnValues[0]) != "false" {
		t.Fatalf("IsClient in the Run DataModel: %+v; want false (the switch)", r)
	}
	for _, c := range []protocol.Context{protocol.ContextEdit, protocol.ContextServer} {
		kit.WaitFor(t, 10*time.Second, string(c)+" reporting Run", func() bool {
			var st struct {
				State string `json:"state"`
			}
			mustCall(t, b, all[c].SessionID, "state", nil, &st)
			return st.State == "Run"
		})
	}
	checkPNGScreenshot(t, port, "--context", "server")
}

// --fault play-fail-late: ExecutePlayModeAsync yields, then fails without
// a test. The plugin answers only once Studio confirms, so play start
// reports Studio's failure instead of waiting for test sessions that never
// come.
func TestPlayStartFailsLate(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-LATE", "--quiet", "--fault", "play-fail-late")
	waitSessions(t, b, "DOC-LATE", protocol.ContextEdit)
	_, stderr, code := cli(t, port, "play", "start")
	if code == 0 || !strings.Contains(stderr, "could not start the test") || !strings.Contains(stderr, "play-fail-late") {
		t.Fatalf("play start: exit %d, stderr %q; want Studio's failure", code, stderr)
	}
	if strings.Contains(stderr, "timed out") {
		t.Fatalf("play start waited for sessions of a test that never started: %q", stderr)
	}
}

// --fault error-and-closed: one stream failure fires Error and then Closed.
// The plugin treats them as one end: it reconnects, resumes the same
// session, and keeps answering (no second link racing the first).
func TestStreamFailureFiresErrorAndClosed(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "DOC-EC", "--quiet", "--fault", "error-and-closed")
	before := waitSessions(t, b, "DOC-EC", protocol.ContextEdit)[protocol.ContextEdit]
	for i := 0; i < 2; i++ {
		studio.Send(t, "drop")
		kit.WaitFor(t, 20*time.Second, "exec to work after the drop", func() bool {
			stdout, _, code := cli(t, port, "exec", "print('back')")
			return code == 0 && strings.Contains(stdout, "back")
		})
	}
	after := waitSessions(t, b, "DOC-EC", protocol.ContextEdit)[protocol.ContextEdit]
	if after.SessionID != before.SessionID {
		t.Fatalf("the session changed across the drops: %s, then %s; want it resumed", before.SessionID, after.SessionID)
	}
}

// --team-create: a Team Test's DataModels cannot open streams; their
// sessions still reach the host through the edit DataModel's relay.
func TestTeamTestRelaysWithoutStreams(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "DOC-TEAM", "--quiet", "--play", "--team-create")
	got := waitSessions(t, b, "DOC-TEAM", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
	for _, c := range []protocol.Context{protocol.ContextServer, protocol.ContextClient} {
		stdout, stderr, code := cli(t, port, "exec", "--session", got[c].SessionID, "print('team '..tostring(game:GetService('RunService'):IsServer()))")
		if code != 0 || !strings.Contains(stdout, "team ") {
			t.Fatalf("%s exec: exit %d, stdout %q, stderr %q", c, code, stdout, stderr)
		}
	}
}

// A plugin that unloads (a reload) while an exec runs commits the exec's
// recording: ChangeHistoryService is left with none open, and one undo
// step reverts what the script changed (#25 item 5).
func TestUnloadFinishesTheRecording(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "DOC-UNLOAD", "--quiet")
	waitSessions(t, b, "DOC-UNLOAD", protocol.ContextEdit)
	cmd := userCmd(t, t.TempDir(), port, "exec", "-- long one\nworkspace:FindFirstChild('Empty'):Destroy()\nprint('started')\ntask.wait(60)")
	var out, errOut kit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	kit.WaitFor(t, 20*time.Second, "the exec to start", func() bool { return strings.Contains(out.String(), "started") })
	studio.Send(t, "reload")
	_ = cmd.Wait() // the exec ends with the plugin; its outcome is not the point here
	edit := waitSessions(t, b, "DOC-UNLOAD", protocol.ContextEdit)[protocol.ContextEdit]
	var r struct {
		Success      bool              `json:"success"`
		ReturnValues []json.RawMessage `json:"returnValues"`
	}
	kit.WaitFor(t, 20*time.Second, "the reloaded plugin to answer", func() bool {
		return call(t, b, edit.SessionID, "exec", map[string]any{"history": false,
			"script": `return game:GetService("ChangeHistoryService"):IsRecordingInProgress()`}).err == nil
	})
	mustCall(t, b, edit.SessionID, "exec", map[string]any{"history": false, "script": `return game:GetService("ChangeHistoryService"):IsRecordingInProgress()`}, &r)
	if !r.Success || len(r.ReturnValues) != 1 || string(r.ReturnValues[0]) != "false" {
		t.Fatalf("after the unload: recording in progress %+v; want false", r)
	}
	if got := historyStep(t, studio, "undo"); got != "-- long one" {
		t.Fatalf("undo answered %q; want the exec's step", got)
	}
}
