package ptytest

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

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
