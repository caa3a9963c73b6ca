//go:build unix

package emulator_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Ctrl-C during exec --play: the script is cancelled, the test ends, and
// the command exits 130 with the window back in Edit.
func TestExecPlayInterrupted(t *testing.T) {
	port, _, b, _ := editWindow(t, "E2E-EXEC-INT")

	cmd := exec.Command(kit.Binary(t), "--port", strconv.Itoa(port), "exec", "--play", `print("started") task.wait(60) print("never")`)
	cmd.Env = kit.ChildEnv(t)
	var out, errOut kit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	kit.WaitFor(t, 60*time.Second, "the script to start", func() bool { return strings.Contains(out.String(), "started") })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(40 * time.Second):
		t.Fatalf("still running 40 s after Ctrl-C; stderr %s", errOut.String())
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
		t.Errorf("exit %v, want 130; stderr %s", err, errOut.String())
	}
	if bytes.Contains([]byte(out.String()), []byte("never")) {
		t.Errorf("the script went on: %s", out.String())
	}
	backInEdit(t, b, "E2E-EXEC-INT")
}
