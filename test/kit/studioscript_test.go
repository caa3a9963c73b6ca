//go:build unix

package kit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStudioScript: the script runs its command with the place as "$1",
// and the test's cleanup stops the process it became.
func TestStudioScript(t *testing.T) {
	dir := t.TempDir()
	script, out := filepath.Join(dir, "RobloxStudio"), filepath.Join(dir, "args")
	var cmd *exec.Cmd
	t.Run("launch", func(t *testing.T) {
		StudioScript(t, script, "sh", `-c 'echo "$1" > "$0"; exec sleep 30' `+out+` "$1"`)
		cmd = exec.Command(script, "Obby.rbxl")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		WaitFor(t, 10*time.Second, "the script to run its command", func() bool {
			data, err := os.ReadFile(out)
			return err == nil && strings.TrimSpace(string(data)) == "Obby.rbxl"
		})
	})
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the launched process outlived the test that launched it")
	}
}
