//go:build unix

package kit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestStopPIDFileStopsTheProcess: the process whose pid is in the file is
// asked to exit and is gone when StopPIDFile returns.
func TestStopPIDFileStopsTheProcess(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	path := filepath.Join(t.TempDir(), "sleep.pid")
	if err := os.WriteFile(path, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !StopPIDFile(t, path) {
		t.Fatal("reported no process to stop")
	}
	select {
	case err := <-exited:
		if err == nil {
			t.Fatal("sleep exited 0: it was not stopped")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the process is still running")
	}
}
