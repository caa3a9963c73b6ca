//go:build unix

package emulator_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Ctrl-C during a test run cancels the exec in Studio, and the runner's
// watchdog removes the mounted folder. (Windows cannot deliver os.Interrupt
// to a child process; the timeout subtest covers the same cancel there.)
func TestTestCommandInterrupt(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-TEST-INTERRUPT")
	mounted := func() bool {
		out, errOut, code := cli(t, port, "query", "ServerStorage", "--children")
		if code != 0 {
			t.Fatalf("query exited %d: %s", code, errOut)
		}
		return strings.Contains(out, "StudioBridgeTest_")
	}
	cmd := exec.Command(kit.Binary(t), "test", "slow")
	cmd.Dir = specsDir
	cmd.Env = kit.ChildEnv(t, "STUDIO_BRIDGE_PORT="+strconv.Itoa(port))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kit.WaitFor(t, 20*time.Second, "the specs to be mounted", mounted)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130\n%s", err, errOut.String())
	}
	kit.WaitFor(t, 10*time.Second, "the mounted folder to go", func() bool { return !mounted() })
}
