package ptytest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Open returns a pseudo-terminal pair (Linux). Both ends are non-blocking
// files on Go's poller, so closing them wakes their readers.
func Open(t testing.TB) (master, slave *os.File) {
	t.Helper()
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	sfd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	_ = unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	return os.NewFile(uintptr(mfd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name)
}

// Screen records everything a program writes to its terminal.
type Screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

// Record copies master into a Screen until master is closed.
func Record(master *os.File) *Screen {
	s := &Screen{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.buf.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// Done is closed when the recording stops.
func (s *Screen) Done() <-chan struct{} { return s.done }

// String is everything shown so far.
func (s *Screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// WaitFor waits until the screen shows want.
func (s *Screen) WaitFor(t testing.TB, want string) {
	t.Helper()
	s.WaitForCount(t, want, 1)
}

// WaitForCount waits until the screen shows want n times.
func (s *Screen) WaitForCount(t testing.TB, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q %d times:\n%s", want, n, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
