package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/plugin"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestInstallAndUninstallPlugin: install-plugin writes the Rojo build
// paired with the user's token (the key derived from it) and the port it
// was run for, read back from the installed file; uninstall removes it.
func TestInstallAndUninstallPlugin(t *testing.T) {
	commands.PluginBuild.Data, commands.PluginBuild.Version = plugin.RBXM, "9.9.9"
	dir := filepath.Join(t.TempDir(), "Plugins")
	for _, tt := range []struct {
		args []string
		port int
	}{
		{nil, protocol.DefaultPort},
		{[]string{"--port", "41234"}, 41234},
	} {
		out, errOut, code := run(t, append(tt.args, "install-plugin", "--dir", dir)...)
		if code != 0 || !strings.Contains(out, "Restart Studio") || !strings.Contains(out, "9.9.9") || !strings.Contains(out, strconv.Itoa(tt.port)) {
			t.Fatalf("install %v (exit %d): %s %s", tt.args, code, out, errOut)
		}
		got, err := os.ReadFile(filepath.Join(dir, commands.PluginFileName))
		if err != nil {
			t.Fatal(err)
		}
		key, port, ok, err := plugin.Paired(got)
		if err != nil || !ok || !bytes.Equal(key, kit.Token(t).PairingKey()) || port != tt.port {
			t.Fatalf("installed plugin pairs with key %x port %d (%v, %v); want the test token's key and port %d", key, port, ok, err, tt.port)
		}
		if strings.Contains(string(got), plugin.Placeholder) {
			t.Fatal("the installed plugin still holds the placeholder")
		}
		if strings.Contains(out+errOut, kit.Token(t).Value) {
			t.Fatal("install-plugin printed the token")
		}
	}
	out, _, code := run(t, "uninstall-plugin", "--dir", dir, "--json")
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
	_, errOut, code := run(t, "--port", port, "launch", "--studio-path", slow, "--wait", "40s", "--timeout", "500ms")
	// Which bound ended the wait is in the message, not the clock: it names
	// the 500ms of --timeout, not the 40s of --wait.
	if code != exitTimeout || !strings.Contains(errOut, "500ms") || strings.Contains(errOut, "40s") {
		t.Fatalf("--timeout 500ms: exit %d, stderr %q: want TIMEOUT naming --timeout's 500ms", code, errOut)
	}
	t.Logf("stderr: %s", errOut)
}
