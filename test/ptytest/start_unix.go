//go:build linux || darwin

package ptytest

import (
	"os"
	"os/exec"
)

// startProcess runs cmd on the slave of a new pseudo-terminal, as its
// controlling terminal, and returns the master twice (the output read into
// the Screen and the input typed into) with the running program.
func startProcess(cmd *exec.Cmd) (out, keys *os.File, p process, err error) {
	master, slave, err := openPTY()
	if err != nil {
		return nil, nil, nil, err
	}
	Attach(cmd, slave)
	err = cmd.Start()
	_ = slave.Close() // the child has its own copy; ours would keep the master from seeing it exit
	if err != nil {
		_ = master.Close()
		return nil, nil, nil, err
	}
	return master, master, unixProcess{cmd: cmd, master: master}, nil
}

// unixProcess is a program started with os/exec on a pseudo-terminal.
type unixProcess struct {
	cmd    *exec.Cmd
	master *os.File
}

func (p unixProcess) wait() error { return p.cmd.Wait() }
func (p unixProcess) kill() error { return p.cmd.Process.Kill() }

// release closes the master: it is on Go's poller, so this wakes the
// Screen's reader even if something else still holds the slave.
func (p unixProcess) release() { _ = p.master.Close() }
