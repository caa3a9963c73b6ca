//go:build !windows

package bridge

import (
	"errors"
	"fmt"
	"syscall"
)

// processAlive reports whether a process with pid exists (stopped or not).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func resumeAdvice(pid int) string {
	return fmt.Sprintf("Resume it (`fg` in its terminal, or `kill -CONT %d`) or end it (`kill %d`; `kill -9 %d` if it stays)", pid, pid, pid)
}
