package kit

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Buffer is an io.Writer safe to read while a process writes to it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Proc is a process running in the background.
type Proc struct {
	Name   string
	Cmd    *exec.Cmd
	Stdout *Buffer
	Stderr *Buffer          // the same Buffer as Stdout when Options.Combined
	Stdin  io.WriteCloser   // set when Options.Stdin
	Exited time.Time        // when it exited, once Done is closed
	State  *os.ProcessState // its exit, once Done is closed
	done   chan struct{}
}

// Options shape a process started by Start.
type Options struct {
	Dir      string   // working directory; empty: the test's
	Env      []string // added to ChildEnv (and winning over it)
	Combined bool     // stdout and stderr into one Buffer, in order
	Stdin    bool     // give the process a stdin pipe (Proc.Stdin)
}

// Start runs path with args in the background, in ChildEnv. At cleanup a
// process still running is stopped (Stop), and its output is logged if the
// test failed.
func Start(tb testing.TB, name string, opt Options, path string, args ...string) *Proc {
	tb.Helper()
	p := &Proc{Name: name, Cmd: exec.Command(path, args...), Stdout: &Buffer{}, done: make(chan struct{})}
	p.Stderr = p.Stdout
	if !opt.Combined {
		p.Stderr = &Buffer{}
	}
	p.Cmd.Dir = opt.Dir
	p.Cmd.Env = ChildEnv(tb, opt.Env...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	Interruptible(p.Cmd) // so that Stop, Terminate and Interrupt can ask it to exit everywhere
	if opt.Stdin {
		stdin, err := p.Cmd.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		p.Stdin = stdin
	}
	if err := p.Cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	go func() {
		_ = p.Cmd.Wait()
		interruptible.Delete(p.Cmd) // nothing to interrupt any more; keep no exited Cmd
		p.Exited = time.Now()
		p.State = p.Cmd.ProcessState
		close(p.done)
	}()
	tb.Cleanup(func() {
		p.Stop()
		if tb.Failed() {
			if opt.Combined {
				tb.Logf("--- %s (%s):\n%s", name, strings.Join(args, " "), p.Stdout.String())
			} else {
				tb.Logf("--- %s (%s) stderr:\n%s--- stdout:\n%s", name, strings.Join(args, " "), p.Stderr.String(), p.Stdout.String())
			}
		}
	})
	return p
}

// PID is the process id.
func (p *Proc) PID() int { return p.Cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Running reports whether the process has not exited yet.
func (p *Proc) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Wait waits up to d for the process to exit and returns its exit code (-1
// when a signal ended it).
func (p *Proc) Wait(tb testing.TB, d time.Duration) int {
	tb.Helper()
	select {
	case <-p.done:
		return p.State.ExitCode()
	case <-time.After(d):
		tb.Fatalf("%s still running after %s; stderr:\n%s", p.Name, d, p.Stderr.String())
		return 0
	}
}

// Kill ends the process as a crash would (SIGKILL; TerminateProcess on
// Windows) and waits until it is gone. It returns when the kill was sent.
func (p *Proc) Kill(tb testing.TB) time.Time {
	tb.Helper()
	if err := p.Cmd.Process.Kill(); err != nil && p.Running() {
		tb.Fatalf("kill %s: %v", p.Name, err)
	}
	killed := time.Now()
	p.Wait(tb, 5*time.Second)
	return killed
}

// Terminate asks the process to shut down as a user or service manager
// would (SIGTERM; Ctrl-Break on Windows) without waiting for it.
func (p *Proc) Terminate(tb testing.TB) {
	tb.Helper()
	if err := terminate(tb, p.Cmd.Process); err != nil {
		tb.Fatalf("terminate %s: %v", p.Name, err)
	}
}

// Stop ends the process if it is still running: politely (SIGTERM;
// Ctrl-Break on Windows), then by force after 5 s. It is safe to call more
// than once.
func (p *Proc) Stop() {
	if !p.Running() {
		return
	}
	if askToExit(p.Cmd.Process) == nil {
		select {
		case <-p.done:
			return
		case <-time.After(5 * time.Second):
		}
	}
	_ = p.Cmd.Process.Kill()
	<-p.done
}

// Send writes one line to the process's stdin (Options.Stdin).
func (p *Proc) Send(tb testing.TB, line string) {
	tb.Helper()
	if _, err := io.WriteString(p.Stdin, line+"\n"); err != nil {
		tb.Fatalf("%s: write %q: %v", p.Name, line, err)
	}
}
