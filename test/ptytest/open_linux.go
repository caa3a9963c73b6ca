package ptytest

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ptsName unlocks the slave of the master mfd and names it (Linux:
// /dev/pts/N).
func ptsName(mfd int) (string, error) {
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		return "", fmt.Errorf("unlock pty: %w", err)
	}
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err != nil {
		return "", fmt.Errorf("pty number: %w", err)
	}
	return fmt.Sprintf("/dev/pts/%d", n), nil
}
