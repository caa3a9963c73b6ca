package ptytest

import (
	"os"
	"testing"
)

// Open skips the test on Windows. A Windows pseudo console (ConPTY) is not a
// pair of files that this process could read, write or hand to a goroutine:
// it reaches only a child process, which CreateProcess attaches to it. A test
// that runs a program as a child gets a real pseudo console from Start; a
// test that runs code in its own process on a terminal cannot have one.
func Open(t testing.TB) (master, slave *os.File) {
	t.Helper()
	t.Skip("ptytest: Windows has no pseudo-terminal file pair; a pseudo console (ConPTY) is visible only to a child process started with it (ptytest.Start), not to code in this process")
	return nil, nil
}
