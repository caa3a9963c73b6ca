package emulator_test

// Ctrl-C to a command that runs code in Studio: SIGINT, or Ctrl-Break on
// Windows (kit.Interrupt), which the command sees as os.Interrupt either way.

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// interruptCLI starts cmd with its output in out and errOut, waits (at most
// wait) for ready, sends it Ctrl-C and checks that it exits 130 within 40 s.
func interruptCLI(t *testing.T, cmd *exec.Cmd, out, errOut *kit.Buffer, wait time.Duration, what string, ready func() bool) {
	t.Helper()
	cmd.Stdout, cmd.Stderr = out, errOut
	kit.Interruptible(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	kit.WaitFor(t, wait, what, ready)
	if code := kit.InterruptAndWait(t, cmd, 40*time.Second); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, errOut.String())
	}
}

// Ctrl-C during exec --play: the script is cancelled, the test ends, and
// the command exits 130 with the window back in Edit.
func TestExecPlayInterrupted(t *testing.T) {
	port, _, b, _ := editWindow(t, "E2E-EXEC-INT")
	cmd := userCmd(t, "", port, "exec", "--play", `print("started") task.wait(60) print("never")`)
	var out, errOut kit.Buffer
	interruptCLI(t, cmd, &out, &errOut, 60*time.Second, "the script to start", func() bool { return strings.Contains(out.String(), "started") })
	if strings.Contains(out.String(), "never") {
		t.Errorf("the script went on: %s", out.String())
	}
	backInEdit(t, b, "E2E-EXEC-INT")
}

// Ctrl-C during a test run cancels the exec in Studio, and the runner's
// watchdog removes the mounted folder.
func TestTestCommandInterrupt(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-TEST-INTERRUPT")
	mounted := func() bool {
		out, errOut, code := cli(t, port, "query", "ServerStorage", "--children")
		if code != 0 {
			t.Fatalf("query exited %d: %s", code, errOut)
		}
		return strings.Contains(out, "StudioBridgeTest_")
	}
	cmd := userCmd(t, specsDir, port, "test", "slow")
	var out, errOut kit.Buffer
	interruptCLI(t, cmd, &out, &errOut, 20*time.Second, "the specs to be mounted", mounted)
	kit.WaitFor(t, 10*time.Second, "the mounted folder to go", func() bool { return !mounted() })
}

// Ctrl-C during test --play: the run is cancelled, the test ends, and the
// command exits 130 with the window back in Edit.
func TestTestPlayInterrupted(t *testing.T) {
	const instance = "E2E-TEST-PLAY-INT"
	port, _, b, _ := editWindow(t, instance)
	cmd := userCmd(t, specsDir, port, "test", "--play", "slow")
	var out, errOut kit.Buffer
	// the specs are mounted in the test's server DataModel
	interruptCLI(t, cmd, &out, &errOut, 60*time.Second, "the specs to be mounted in the test's server", func() bool {
		listing, _, code := cli(t, port, "query", "ServerStorage", "--children", "--context", "server")
		return code == 0 && strings.Contains(listing, "StudioBridgeTest_")
	})
	backInEdit(t, b, instance)
}
