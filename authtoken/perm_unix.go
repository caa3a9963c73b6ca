//go:build !windows

package authtoken

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// restrict makes the new token file readable by the user only (CreateTemp
// already makes it 0600; this states it).
func restrict(f *os.File) error { return f.Chmod(0o600) }

// checkPrivate refuses a token file that another user could read or that
// another user owns (and so could have chosen).
func checkPrivate(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("token file %s can be read by other users (mode %04o); run `chmod 600 %s`", path, fi.Mode().Perm(), path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("token file %s belongs to another user (uid %d); remove it and studio-bridge makes a new one", path, st.Uid)
	}
	return nil
}

// moveExclusive puts tmp at path unless path exists (fs.ErrExist): link(2)
// never replaces, unlike rename(2).
func moveExclusive(tmp, path string) error {
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return os.Remove(tmp)
}
