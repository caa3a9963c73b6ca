//go:build windows

package authtoken

import (
	"fmt"
	"os"
)

// openNoFollow opens path read-only. Windows has no O_NOFOLLOW or FIFOs in
// the file system; openToken's Lstat and its same-file check after the
// open refuse a link or anything but the regular file it saw.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the token file: %w", err)
	}
	return f, nil
}
