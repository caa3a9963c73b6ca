//go:build !windows

package authtoken

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO, a symlink or a directory at the token path is refused with an
// error naming the path and what is there, and the read never waits: a
// FIFO without a writer used to block the open forever (attack 10 of
// issue 22), hanging every command.
func TestSpecialTokenFilesRefusedWithoutBlocking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("cannot make a FIFO here: %v", err)
			}
		}, "named pipe"},
		{"symlink to a private token", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, []byte(strings.Repeat("a", 43)), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"symlink to a FIFO", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(target, 0o600); err != nil {
				t.Skipf("cannot make a FIFO here: %v", err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			tt.make(t, path)
			done := make(chan error, 1)
			go func() {
				_, err := LoadOrCreate(dir)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a hang guard, not a speed bound
				t.Fatal("LoadOrCreate blocked on the special file")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "remove it") {
				t.Fatalf("err %v; want it to name %s, say %q and how to fix it", err, path, tt.want)
			}
		})
	}
}
