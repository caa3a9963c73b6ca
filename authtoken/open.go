package authtoken

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// openToken opens the token file for reading without ever blocking or
// following a link: the path is checked with Lstat first, then opened
// (openNoFollow: O_NONBLOCK|O_NOFOLLOW on Unix, so a FIFO swapped in between
// the two does not hang the open), and the opened file must be the same
// regular file the Lstat saw. A FIFO, device, socket, directory or symlink
// at the path is a clear error: a FIFO there used to hang every command,
// deaf to SIGINT.
func openToken(path string) (*os.File, fs.FileInfo, error) {
	lfi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err // the caller creates the file
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the token file: %w", err)
	}
	if !lfi.Mode().IsRegular() {
		return nil, nil, notRegular(path, lfi.Mode())
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("read the token file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, notRegular(path, fi.Mode())
	}
	if !os.SameFile(lfi, fi) {
		_ = f.Close()
		return nil, nil, fmt.Errorf("token file %s was replaced while it was being opened; is another program changing it? Run the command again", path)
	}
	return f, fi, nil
}

// notRegular is the error for a token path that is not a regular file.
func notRegular(path string, mode fs.FileMode) error {
	return fmt.Errorf("token file %s is %s, not a regular file; remove it and studio-bridge makes a new one", path, kindOf(mode))
}

// kindOf names a file's type for a message.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0, mode&fs.ModeCharDevice != 0:
		return "a device"
	case mode.IsDir():
		return "a directory"
	}
	return "a special file"
}
