package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestInstallAndUninstallPlugin(t *testing.T) {
	commands.PluginBuild.Data, commands.PluginBuild.Version = []byte("rbxm bytes"), "9.9.9"
	dir := filepath.Join(t.TempDir(), "Plugins")
	out, errOut, code := run(t, "install-plugin", "--dir", dir)
	if code != 0 || !strings.Contains(out, "Restart Studio") || !strings.Contains(out, "9.9.9") {
		t.Fatalf("install (exit %d): %s %s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(dir, commands.PluginFileName))
	if err != nil || string(got) != "rbxm bytes" {
		t.Fatalf("installed file: %q %v", got, err)
	}
	out, _, code = run(t, "uninstall-plugin", "--dir", dir, "--json")
	var data commands.InstallData
	if code != 0 || json.Unmarshal([]byte(out), &data) != nil || !data.Removed {
		t.Fatalf("uninstall (exit %d): %s", code, out)
	}
	out, _, code = run(t, "uninstall-plugin", "--dir", dir)
	if code != 0 || !strings.Contains(out, "not installed") {
		t.Fatalf("second uninstall (exit %d): %s", code, out)
	}
}

func TestLaunchWaitsForTheNewStudioSession(t *testing.T) {
	port := freePort(t)
	// launch starts this wrapper as it would start Studio; it execs the
	// fake Studio, which cleanup stops
	studio := filepath.Join(t.TempDir(), "RobloxStudio")
	kit.StudioScript(t, studio, kit.Build(t, "test/fakeplugin/fakestudio"), `"$@"`)
	place := filepath.Join(t.TempDir(), "Obby.rbxl")
	if err := os.WriteFile(place, []byte("place"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STUDIO_BRIDGE_PORT", port)
	out, errOut, code := run(t, "launch", place, "--studio-path", studio, "--wait", "20s")
	if code != 0 || !strings.Contains(out, "Studio is up: Obby [edit]") {
		t.Fatalf("launch (exit %d): %s %s", code, out, errOut)
	}

	_, errOut, code = run(t, "launch", "--studio-path", filepath.Join(t.TempDir(), "nope"))
	if code != exitUsage || !strings.Contains(errOut, "--studio-path") {
		t.Fatalf("missing studio: exit %d %s", code, errOut)
	}
}

// TestLaunchRefusesWhatStudioCannotOpen: the place is checked before Studio
// is looked for, and must be a .rbxl or .rbxlx file; --timeout bounds the
// wait for the session.
func TestLaunchRefusesWhatStudioCannotOpen(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "Obby.rbxl")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	for _, tt := range []struct{ place, want string }{
		{filepath.Join(dir, "missing.rbxl"), "does not exist"},
		{notes, "is not a place file: Studio opens .rbxl and .rbxlx files"},
		{folder, "is a directory, not a place file"},
	} {
		// No Studio anywhere: the place is still what is reported.
		_, errOut, code := run(t, "--port", port, "launch", tt.place, "--studio-path", "")
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("launch %s: exit %d, stderr %q, want %q", tt.place, code, errOut, tt.want)
		}
	}

	slow := filepath.Join(dir, "RobloxStudio")
	kit.StudioScript(t, slow, "sleep", "30")
	start := time.Now()
	_, errOut, code := run(t, "--port", port, "launch", "--studio-path", slow, "--wait", "40s", "--timeout", "500ms")
	if code != exitTimeout || time.Since(start) > 10*time.Second {
		t.Fatalf("--timeout 500ms: exit %d after %s: %s", code, time.Since(start), errOut)
	}
}
