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
	dir := kit.Files(t, map[string]string{"Obby.rbxl": "place"})
	place, studio := filepath.Join(dir, "Obby.rbxl"), filepath.Join(dir, "RobloxStudio")
	// launch starts this wrapper as it would start Studio; it execs the
	// fake Studio, which cleanup stops
	kit.StudioScript(t, studio, kit.Build(t, "test/fakeplugin/fakestudio"), `"$@"`)
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
	dir := kit.Files(t, map[string]string{"notes.txt": "x", "Obby.rbxl/": ""})
	port := freePort(t)
	for _, tt := range []struct{ place, want string }{
		{"missing.rbxl", "does not exist"},
		{"notes.txt", "is not a place file: Studio opens .rbxl and .rbxlx files"},
		{"Obby.rbxl", "is a directory, not a place file"},
	} {
		// No Studio anywhere: the place is still what is reported.
		place := filepath.Join(dir, tt.place)
		_, errOut, code := run(t, "--port", port, "launch", place, "--studio-path", "")
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("launch %s: exit %d, stderr %q, want %q", place, code, errOut, tt.want)
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
