package kit

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// interruptible holds the commands prepared by Interruptible, so that
// Interrupt refuses, on every platform, a command Windows could not
// interrupt: a test written on Linux then needs no Windows run to be right.
var interruptible sync.Map // *exec.Cmd → struct{}

// Interruptible prepares cmd, before its Start, to be sent Ctrl-C with
// Interrupt. On Windows the child gets a process group of its own
// (CREATE_NEW_PROCESS_GROUP), the only target Ctrl-Break can be sent to
// without reaching the test process too; elsewhere nothing changes.
func Interruptible(cmd *exec.Cmd) {
	interruptible.Store(cmd, struct{}{})
	setInterruptible(cmd)
}

// Interrupt sends the running cmd what Ctrl-C sends, which a Go program sees
// as os.Interrupt: SIGINT on Unix; on Windows CTRL_BREAK_EVENT to the
// child's process group (GenerateConsoleCtrlEvent), which Go's runtime
// delivers to signal.Notify(os.Interrupt) as SIGINT. cmd must have been
// prepared with Interruptible.
//
// Windows needs the test process to share a console with the child: it
// does under `go test` in a console window; on a runner without a console
// Interrupt returns an error saying so. The Windows code is compile-checked
// only (GOOS=windows go vet): no Windows machine has run it.
func Interrupt(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("kit: Interrupt: the command has not been started")
	}
	if _, ok := interruptible.Load(cmd); !ok {
		return errors.New("kit: Interrupt: prepare the command with kit.Interruptible before its Start (Windows can interrupt only a child in its own process group)")
	}
	return interrupt(cmd.Process)
}

// InterruptAndWait sends the running cmd Ctrl-C (Interrupt) and waits up to
// d for it to exit; it returns the exit code. The test fails if the
// interrupt cannot be sent, or if the process is still running after d (it
// is then killed, and its stderr logged when cmd.Stderr can say it).
func InterruptAndWait(tb testing.TB, cmd *exec.Cmd, d time.Duration) int {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := Interrupt(cmd); err != nil {
		_ = cmd.Process.Kill()
		<-done
		tb.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		tb.Fatalf("still running %s after Ctrl-C%s", d, stderrOf(cmd))
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		tb.Fatalf("waiting for the interrupted process: %v", err)
	}
	return cmd.ProcessState.ExitCode()
}

// stderrOf is what cmd wrote to stderr, when its Stderr can say (a Buffer,
// a bytes.Buffer), for a failure message; read it only once cmd has exited.
func stderrOf(cmd *exec.Cmd) string {
	if s, ok := cmd.Stderr.(fmt.Stringer); ok {
		return "; stderr:\n" + s.String()
	}
	return ""
}

// Suspend stops the process pid without ending it, as Ctrl-Z, a debugger or
// a suspended laptop leave a program: SIGSTOP on Unix (returning once Linux
// shows it stopped), and on Windows SuspendThread on each of its threads.
// Resume undoes it. The Windows code is compile-checked only (GOOS=windows
// go vet): no Windows machine has run it.
func Suspend(pid int) error {
	if err := suspend(pid); err != nil {
		return fmt.Errorf("kit: suspend process %d: %w", pid, err)
	}
	return nil
}

// Resume lets a process stopped by Suspend run again: SIGCONT on Unix,
// ResumeThread on each of its threads on Windows (compile-checked only).
func Resume(pid int) error {
	if err := resume(pid); err != nil {
		return fmt.Errorf("kit: resume process %d: %w", pid, err)
	}
	return nil
}
