//go:build windows

package commands

import (
	"os/exec"
	"syscall"
)

// detach starts Studio in its own process group, so a Ctrl-C in the
// console that launched it does not close it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
