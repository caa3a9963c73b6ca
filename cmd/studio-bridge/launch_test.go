package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
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
	studio := filepath.Join(t.TempDir(), "fakestudio")
	if out, err := exec.Command("go", "build", "-o", studio, "github.com/studio-bridge/studio-bridge/test/fakeplugin/fakestudio").CombinedOutput(); err != nil {
		t.Fatalf("build fakestudio: %v\n%s", err, out)
	}
	place := filepath.Join(t.TempDir(), "Obby.rbxl")
	if err := os.WriteFile(place, []byte("place"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STUDIO_BRIDGE_PORT", port)
	t.Cleanup(func() { // the launched Studio outlives the command, as a real one does
		_ = exec.Command("pkill", "-f", studio).Run()
		time.Sleep(100 * time.Millisecond)
	})
	out, errOut, code := run(t, "launch", place, "--studio-path", studio, "--wait", "20s")
	if code != 0 || !strings.Contains(out, "Studio is up: Obby [edit]") {
		t.Fatalf("launch (exit %d): %s %s", code, out, errOut)
	}

	_, errOut, code = run(t, "launch", "--studio-path", filepath.Join(t.TempDir(), "nope"))
	if code != ExitUsage || !strings.Contains(errOut, "--studio-path") {
		t.Fatalf("missing studio: exit %d %s", code, errOut)
	}
}
