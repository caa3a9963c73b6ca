//go:build !windows

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup puts cmd in a process group of its own, so that Ctrl-C in the
// terminal reaches only try, which then stops it once: studio-bridge takes
// a second Ctrl-C as "stop at once" and would skip its graceful handover.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// interrupt sends p what Ctrl-C sends.
func interrupt(p *os.Process) {
	_ = p.Signal(os.Interrupt)
}
