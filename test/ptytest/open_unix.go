//go:build linux || darwin

package ptytest

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Open returns a pseudo-terminal pair, 120×40. Both ends are non-blocking
// files on Go's poller, so closing them wakes their readers.
func Open(t testing.TB) (master, slave *os.File) {
	t.Helper()
	master, slave, err := openPTY()
	if err != nil {
		t.Fatalf("ptytest: %v", err)
	}
	return master, slave
}

// openPTY opens the master (/dev/ptmx), lets the platform unlock it and
// name its slave (ptsName), and opens the slave.
func openPTY() (master, slave *os.File, err error) {
	const flags = unix.O_RDWR | unix.O_NOCTTY | unix.O_NONBLOCK | unix.O_CLOEXEC
	mfd, err := unix.Open("/dev/ptmx", flags, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	name, err := ptsName(mfd)
	if err != nil {
		_ = unix.Close(mfd)
		return nil, nil, err
	}
	sfd, err := unix.Open(name, flags, 0)
	if err != nil {
		_ = unix.Close(mfd)
		return nil, nil, fmt.Errorf("open %s: %w", name, err)
	}
	_ = unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	return os.NewFile(uintptr(mfd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name), nil
}
