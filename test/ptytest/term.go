package ptytest

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// Term is a program started by Start in a terminal of its own: what it
// shows (the embedded Screen), a way to type into it, and how it ended.
type Term struct {
	*Screen
	keys   *os.File      // the terminal's input: the pty master, or the pseudo console's input pipe
	exited chan struct{} // closed once the program has exited; err is set before
	err    error
}

// process is the platform half of a Term: the started program and what
// holds its terminal open.
type process interface {
	// wait blocks until the program exits: nil for exit status 0.
	wait() error
	// kill ends the program at once. It may race with the program's own
	// exit, so its error matters only if the program then keeps running.
	kill() error
	// release, once the program has exited, closes the terminal so that
	// its output reaches end of file and the Screen's reader stops.
	release()
}

// Start runs cmd in a terminal of its own (120×40) as a person would run
// it: its stdin, stdout and stderr are that terminal. On Unix that is a
// pseudo-terminal (Open) that is also cmd's controlling terminal (Attach);
// on Windows it is a pseudo console (ConPTY), which only a child process
// can use: see start_windows.go. cmd.Stdin, Stdout, Stderr and SysProcAttr
// must be unset.
//
// When the test ends, Start's cleanup kills the program if it still runs,
// closes the terminal, waits for the Screen to stop recording and, if the
// test failed, logs the screen.
func Start(t testing.TB, cmd *exec.Cmd) *Term {
	t.Helper()
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil || cmd.SysProcAttr != nil {
		t.Fatalf("ptytest.Start(%s): leave Stdin, Stdout, Stderr and SysProcAttr unset: the terminal provides them", cmd.Path)
	}
	out, keys, p, err := startProcess(cmd)
	if err != nil {
		t.Fatalf("ptytest: start %s in a terminal: %v", cmd.Path, err)
	}
	term := &Term{Screen: Record(out), keys: keys, exited: make(chan struct{})}
	go func() {
		term.err = p.wait()
		close(term.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-term.exited:
		default:
			killErr := p.kill() // an error is only news if the program did not end
			select {
			case <-term.exited:
			case <-time.After(10 * time.Second):
				t.Errorf("ptytest: %s still runs 10 s after it was killed (%v)", cmd.Path, killErr)
				return
			}
		}
		p.release()
		select {
		case <-term.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("ptytest: the output of %s did not end 10 s after it exited", cmd.Path)
		}
		_ = keys.Close()
		_ = out.Close()
		if t.Failed() {
			t.Logf("screen of %s:\n%s", cmd.Path, term.String())
		}
	})
	return term
}

// Type sends keys to the program as typed at its terminal ("\r" is Enter,
// "\x03" Ctrl-C, "\x04" Ctrl-D).
func (term *Term) Type(t testing.TB, keys string) {
	t.Helper()
	if _, err := term.keys.Write([]byte(keys)); err != nil {
		t.Fatalf("type %q: %v", keys, err)
	}
}

// Wait waits up to d for the program to exit and returns how it ended: nil
// for exit status 0. A program still running after d fails the test.
func (term *Term) Wait(t testing.TB, d time.Duration) error {
	t.Helper()
	select {
	case <-term.exited:
		return term.err
	case <-time.After(d):
		t.Fatalf("the program did not exit within %s; screen:\n%s", d, term.String())
		return nil
	}
}
