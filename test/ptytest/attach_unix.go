//go:build unix

package ptytest

import (
	"os"
	"os/exec"
	"syscall"
)

// Attach makes slave cmd's stdin, stdout and stderr and its controlling
// terminal (a new session with slave as its tty), as a login shell has:
// Ctrl-C and window sizes then reach cmd as they would from a person.
func Attach(cmd *exec.Cmd, slave *os.File) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
}
