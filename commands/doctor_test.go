package commands

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestDoctorReadFacts(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	base := ProbeFacts{Settings: "ok", PluginConnection: true, Loadstring: true, CaptureService: true, CanCapture: &yes,
		Edit: true, HTTPEnabled: &yes, Recording: "n/a", Streams: 1}
	edit := bridge.Instance{ID: "W", Sessions: []protocol.SessionInfo{{Context: protocol.ContextEdit, State: protocol.StateEdit}}}
	playNoTest := bridge.Instance{ID: "W", Sessions: []protocol.SessionInfo{{Context: protocol.ContextEdit, State: protocol.StatePlay}}}
	playWithTest := bridge.Instance{ID: "W", Sessions: []protocol.SessionInfo{{Context: protocol.ContextEdit, State: protocol.StatePlay}, {Context: protocol.ContextServer}}}
	for _, tc := range []struct {
		name   string
		facts  func(f *ProbeFacts)
		in     bridge.Instance
		active bool
		key    string
		want   string
	}{
		{"settings read back", nil, edit, false, "studio.settings", StatusOK},
		{"settings nil", func(f *ProbeFacts) { f.Settings = "nil" }, edit, false, "studio.settings", StatusDegraded},
		{"settings raise", func(f *ProbeFacts) { f.Settings, f.SettingsError = "error", "boom" }, edit, false, "studio.settings", StatusDegraded},
		{"passive streams", nil, edit, false, "studio.streams", StatusOK},
		{"active stream opened", func(f *ProbeFacts) { f.Stream = "ok" }, edit, true, "studio.streams", StatusOK},
		{"active stream refused", func(f *ProbeFacts) { f.Stream = "too many" }, edit, true, "studio.streams", StatusDegraded},
		{"no PluginConnectionService", func(f *ProbeFacts) { f.PluginConnection = false }, edit, false, "studio.pluginConnection", StatusDegraded},
		{"not playing", nil, edit, false, "studio.pluginsInTest", StatusNA},
		{"play without test DataModel", nil, playNoTest, false, "studio.pluginsInTest", StatusFailed},
		{"test running, nothing reports", func(f *ProbeFacts) { f.TestRunning = true }, edit, false, "studio.pluginsInTest", StatusFailed},
		{"play with test DataModel", nil, playWithTest, false, "studio.pluginsInTest", StatusOK},
		{"no loadstring", func(f *ProbeFacts) { f.Loadstring = false }, edit, false, "studio.sourceLimit", StatusDegraded},
		{"no capture service", func(f *ProbeFacts) { f.CaptureService = false }, edit, false, "studio.capture", StatusDegraded},
		{"cannot capture in edit", func(f *ProbeFacts) { f.CanCapture = &no }, edit, false, "studio.capture", StatusDegraded},
		{"recording refused in play", func(f *ProbeFacts) { f.Recording = "nil" }, playWithTest, false, "studio.recordingInPlay", StatusDegraded},
		{"recording in play", func(f *ProbeFacts) { f.Recording = "ok" }, playWithTest, false, "studio.recordingInPlay", StatusOK},
		{"run mode without IsClient", func(f *ProbeFacts) { f.RunMode, f.Running = true, true }, edit, false, "studio.runService", StatusDegraded},
		{"run mode with IsClient", func(f *ProbeFacts) { f.RunMode, f.Running, f.Client = true, true, true }, edit, false, "studio.runService", StatusOK},
		{"http off", func(f *ProbeFacts) { f.HTTPEnabled = &no }, edit, false, "studio.http", StatusDegraded},
		{"http unreadable", func(f *ProbeFacts) { f.HTTPEnabled = nil }, edit, false, "studio.http", StatusNA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base
			if tc.facts != nil {
				tc.facts(&f)
			}
			checks := readFacts(f, tc.in, tc.active)
			if len(checks) != len(probeKeys) {
				t.Fatalf("%d checks; want one per key (%d)", len(checks), len(probeKeys))
			}
			for i, c := range checks {
				if c.Key != probeKeys[i] {
					t.Fatalf("check %d is %s; want %s", i, c.Key, probeKeys[i])
				}
				if c.Key != tc.key {
					continue
				}
				if c.Status != tc.want {
					t.Fatalf("%s = %+v; want %s", c.Key, c, tc.want)
				}
				if c.Detail == "" || (c.Status == StatusFailed && c.Fix == "") {
					t.Fatalf("%s = %+v: every check says what it found, a failed one what to do", c.Key, c)
				}
			}
		})
	}
}

func TestDoctorVersionCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		h    bridge.Health
		want string
	}{
		{"same", bridge.Health{Version: Version, ProtocolVersion: protocol.Version}, StatusOK},
		{"other build", bridge.Health{Version: Version + "-other", ProtocolVersion: protocol.Version}, StatusDegraded},
		{"other protocol", bridge.Health{Version: Version, ProtocolVersion: protocol.Version + 1}, StatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := versionCheck(tc.h); c.Status != tc.want || (c.Status != StatusOK && c.Fix == "") {
				t.Fatalf("versionCheck = %+v; want %s with a fix unless ok", c, tc.want)
			}
		})
	}
}

func TestDoctorConfigDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := dir + "/file"
	if err := writeTestFile(file); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"none", "", StatusFailed},
		{"not yet made", dir + "/later", StatusOK},
		{"exists", dir, StatusOK},
		{"a file", file, StatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configDirCheck(tc.dir)
			if c.Status != tc.want || (c.Status == StatusFailed && !strings.Contains(c.Fix, "STUDIO_BRIDGE")) {
				t.Fatalf("configDirCheck(%q) = %+v; want %s", tc.dir, c, tc.want)
			}
		})
	}
}

func writeTestFile(path string) error { return os.WriteFile(path, []byte("x"), 0o600) }

// What doctor --active's playtest did is added to the two checks it
// decides; a test it could not stop turns an ok check degraded and says
// what to do.
func TestDoctorPlayProbeAmend(t *testing.T) {
	base := func() []Check {
		return []Check{
			{Key: "studio.settings", Status: StatusOK, Detail: "s"},
			{Key: "studio.pluginsInTest", Status: StatusOK, Detail: "p"},
			{Key: "studio.recordingInPlay", Status: StatusOK, Detail: "r"},
		}
	}
	for _, tc := range []struct {
		name       string
		pp         playProbe
		wantStatus string
		detail     string
		fix        string
	}{
		{"ran and stopped", playProbe{ran: true}, StatusOK, "doctor --active started", ""},
		{"not started", playProbe{note: "doctor could not start a playtest: busy"}, StatusOK, "busy", ""},
		{"left running", playProbe{ran: true, stopErr: errors.New("no server")}, StatusDegraded, "could not stop its playtest: no server", "stop the playtest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.pp.amend(base())
			if got[0].Detail != "s" {
				t.Fatalf("studio.settings changed: %+v", got[0])
			}
			p := got[1]
			if p.Status != tc.wantStatus || !strings.Contains(p.Detail, tc.detail) || !strings.Contains(p.Fix, tc.fix) {
				t.Fatalf("studio.pluginsInTest = %+v; want %s, detail with %q, fix with %q", p, tc.wantStatus, tc.detail, tc.fix)
			}
			if got[2].Status != StatusOK || !strings.Contains(got[2].Detail, tc.detail) && tc.pp.stopErr == nil {
				t.Fatalf("studio.recordingInPlay = %+v", got[2])
			}
		})
	}
}
