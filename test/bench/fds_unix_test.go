//go:build unix

package bench

import (
	"syscall"
	"testing"
)

// ensureFDs raises the open-file limit to at least need, or skips.
func ensureFDs(b *testing.B, need uint64) {
	b.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	if lim.Cur >= need {
		return
	}
	if lim.Max < need {
		b.Skipf("open-file hard limit %d is below the %d this benchmark needs; raise it (ulimit -Hn) and rerun", lim.Max, need)
	}
	lim.Cur = need
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Skipf("cannot raise the open-file limit to %d: %v", need, err)
	}
}
