package ptytest

import (
	"bytes"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Open returns a pseudo-terminal pair (macOS: posix_openpt, grantpt and
// unlockpt done with the ioctls libc uses). Both ends are non-blocking files
// on Go's poller, so closing them wakes their readers.
func Open(t testing.TB) (master, slave *os.File) {
	t.Helper()
	const flags = unix.O_RDWR | unix.O_NOCTTY | unix.O_NONBLOCK | unix.O_CLOEXEC
	mfd, err := unix.Open("/dev/ptmx", flags, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetInt(mfd, unix.TIOCPTYGRANT, 0); err != nil {
		t.Fatalf("grant pty: %v", err)
	}
	if err := unix.IoctlSetInt(mfd, unix.TIOCPTYUNLK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	// TIOCPTYGNAME writes the slave's path into a 128-byte buffer.
	var buf [128]byte
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(mfd), uintptr(unix.TIOCPTYGNAME), uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		t.Fatalf("pty name: %v", errno)
	}
	name := string(buf[:bytes.IndexByte(buf[:], 0)])
	sfd, err := unix.Open(name, flags, 0)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	_ = unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	return os.NewFile(uintptr(mfd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name)
}
