package ptytest

import (
	"bytes"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ptsName unlocks the slave of the master mfd and names it (macOS: grantpt,
// unlockpt and ptsname done with the ioctls libc uses).
func ptsName(mfd int) (string, error) {
	if err := unix.IoctlSetInt(mfd, unix.TIOCPTYGRANT, 0); err != nil {
		return "", fmt.Errorf("grant pty: %w", err)
	}
	if err := unix.IoctlSetInt(mfd, unix.TIOCPTYUNLK, 0); err != nil {
		return "", fmt.Errorf("unlock pty: %w", err)
	}
	// TIOCPTYGNAME writes the slave's path into a 128-byte buffer.
	var buf [128]byte
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(mfd), uintptr(unix.TIOCPTYGNAME), uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		return "", fmt.Errorf("pty name: %w", errno)
	}
	return string(buf[:bytes.IndexByte(buf[:], 0)]), nil
}
