//go:build unix

package kit

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// askToExit sends SIGTERM, the request to shut down cleanly.
func askToExit(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

func terminate(_ testing.TB, p *os.Process) error { return askToExit(p) }

// alive reports whether the process pid (not necessarily a child, so it
// cannot be waited for) exists and has not exited.
func alive(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		rest := bytes.TrimSpace(stat[bytes.LastIndexByte(stat, ')')+1:])
		return !bytes.HasPrefix(rest, []byte("Z")) // a zombie has exited
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		return false // /proc works and the process is gone
	}
	return syscall.Kill(pid, 0) == nil // no /proc (macOS)
}
