package kit

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// askToExit ends the process: Windows cannot ask a console-less child to
// shut down (there is no SIGTERM, and CTRL_BREAK reaches only a process
// group sharing our console), so this is TerminateProcess.
func askToExit(p *os.Process) error { return p.Kill() }

// terminate skips the test: what it checks is a clean shutdown on request,
// which Windows cannot send to a console-less child process.
func terminate(tb testing.TB, _ *os.Process) error {
	tb.Helper()
	tb.Skip("kit: Windows has no SIGTERM to ask a console-less child process to shut down cleanly")
	return nil
}

// alive reports whether the process pid (not necessarily a child) exists
// and has not exited.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}
