package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	dir := t.TempDir()
	fake := filepath.Join(dir, "fakestudio")
	if out, err := exec.Command("go", "build", "-o", fake, "github.com/studio-bridge/studio-bridge/test/fakeplugin/fakestudio").CombinedOutput(); err != nil {
		t.Fatalf("build fakestudio: %v\n%s", err, out)
	}
	// launch starts this wrapper as it would start Studio; the wrapper notes
	// its pid (which exec keeps) so that cleanup stops exactly that process
	pidFile := filepath.Join(dir, "studio.pid")
	studio := filepath.Join(dir, "RobloxStudio")
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %q\nexec %q \"$@\"\n", pidFile, fake)
	if err := os.WriteFile(studio, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	place := filepath.Join(t.TempDir(), "Obby.rbxl")
	if err := os.WriteFile(place, []byte("place"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STUDIO_BRIDGE_PORT", port)
	t.Cleanup(func() { // the launched Studio outlives the command, as a real one does
		if killStarted(pidFile) {
			time.Sleep(100 * time.Millisecond)
		}
	})
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

	slow, pidFile := filepath.Join(dir, "RobloxStudio"), filepath.Join(dir, "studio.pid")
	if err := os.WriteFile(slow, []byte(fmt.Sprintf("#!/bin/sh\necho $$ > %q\nexec sleep 30\n", pidFile)), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if killStarted(pidFile) {
			time.Sleep(100 * time.Millisecond)
		}
	})
	start := time.Now()
	_, errOut, code := run(t, "--port", port, "launch", "--studio-path", slow, "--wait", "40s", "--timeout", "500ms")
	if code != exitTimeout || time.Since(start) > 10*time.Second {
		t.Fatalf("--timeout 500ms: exit %d after %s: %s", code, time.Since(start), errOut)
	}
}

// killStarted stops the process whose pid the fake Studio wrapper wrote to
// pidFile (the wrapper execs the fake Studio, so that is the fake Studio
// itself) — never anything matched by name. It reports whether there was a
// process to stop.
func killStarted(pidFile string) bool {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Signal(syscall.SIGTERM)
	return true
}
