//go:build unix

package kit

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// askToExit sends SIGTERM, the request to shut down cleanly.
func askToExit(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

func terminate(_ testing.TB, p *os.Process) error { return askToExit(p) }

// alive reports whether the process pid (not necessarily a child, so it
// cannot be waited for) exists and has not exited.
func alive(pid int) bool {
	if state, ok := procState(pid); ok {
		return state != 'Z' // a zombie has exited
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		return false // /proc works and the process is gone
	}
	return syscall.Kill(pid, 0) == nil // no /proc (macOS)
}

// procState is the state letter of process pid in /proc (R, S, T, Z…);
// false where there is no such process or no /proc (macOS).
func procState(pid int) (byte, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	rest := bytes.TrimSpace(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(rest) == 0 {
		return 0, false
	}
	return rest[0], true
}

// setInterruptible: Unix needs nothing to send a child SIGINT.
func setInterruptible(*exec.Cmd) {}

func interrupt(p *os.Process) error { return p.Signal(os.Interrupt) }

// suspend sends SIGSTOP and, where /proc shows process states (Linux),
// waits up to 10 s for the process to be stopped, so that it is when
// Suspend returns.
func suspend(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		state, ok := procState(pid)
		if !ok || state == 'T' {
			return nil // stopped, or no /proc to tell (the signal is sent)
		}
		if time.Now().After(deadline) {
			return errors.New("sent SIGSTOP, but the process is not stopped after 10 s")
		}
	}
}

func resume(pid int) error { return syscall.Kill(pid, syscall.SIGCONT) }
