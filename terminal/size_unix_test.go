//go:build linux || darwin

package terminal

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/studio-bridge/studio-bridge/test/ptytest"
)

// A pseudo-terminal nobody sized (0×0, as `script` in CI leaves it) edits
// lines 80 columns wide, not one character per line.
func TestTerminalOnAnUnsizedPTY(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	master, slave := ptytest.Open(t)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{}); err != nil {
		t.Fatal(err)
	}
	if ws, err := unix.IoctlGetWinsize(int(slave.Fd()), unix.TIOCGWINSZ); err != nil || ws.Col != 0 {
		t.Fatalf("the pty is %+v (%v), want 0×0", ws, err)
	}
	scr := ptytest.Record(master)
	done := make(chan error, 1)
	go func() { done <- runTerminal(context.Background(), port, Options{In: slave, Out: slave, Err: slave}) }()
	t.Cleanup(func() {
		slave.Close()
		master.Close()
		<-scr.Done()
	})
	scr.WaitFor(t, "Place [edit]> ")
	if _, err := master.Write([]byte("print('one line')\r")); err != nil {
		t.Fatal(err)
	}
	scr.WaitFor(t, "[Warning] two") // the fake Studio's answer
	if !strings.Contains(scr.String(), "Place [edit]> print('one line')") {
		t.Fatalf("the typed line was not echoed on one line:\n%q", scr.String())
	}
	if _, err := master.Write([]byte("\x04")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Ctrl-D did not exit:\n%s", scr.String())
	}
}

func TestScreenSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w, h         int
		err          error
		wantW, wantH int
	}{
		{120, 40, nil, 120, 40},
		{0, 0, nil, 80, 24},
		{0, 30, nil, 80, 30},
		{100, 0, nil, 100, 24},
		{120, 40, unix.ENOTTY, 80, 24},
	} {
		if w, h := screenSize(tc.w, tc.h, tc.err); w != tc.wantW || h != tc.wantH {
			t.Errorf("screenSize(%d, %d, %v) = %d×%d, want %d×%d", tc.w, tc.h, tc.err, w, h, tc.wantW, tc.wantH)
		}
	}
}
