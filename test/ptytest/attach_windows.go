package ptytest

import (
	"os"
	"os/exec"
)

// Attach makes slave cmd's stdin, stdout and stderr. Windows has no
// controlling terminal to set; Open skips before any caller gets here.
func Attach(cmd *exec.Cmd, slave *os.File) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
}
