//go:build !windows

package authtoken

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens path read-only with O_NOFOLLOW (a symlink put there
// after the Lstat fails with ELOOP instead of being followed) and
// O_NONBLOCK (a FIFO put there opens at once instead of waiting for a
// writer; openToken then refuses it by its type).
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("token file %s is a symbolic link, not a regular file; remove it and studio-bridge makes a new one", path)
		}
		return nil, fmt.Errorf("read the token file: %w", err)
	}
	return f, nil
}
