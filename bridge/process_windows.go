//go:build windows

package bridge

import (
	"fmt"
	"os"
)

// processAlive reports whether a process with pid exists: on Windows
// FindProcess opens it, and fails if there is none.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

func resumeAdvice(pid int) string {
	return fmt.Sprintf("Resume it in its debugger, or end it (`taskkill /PID %d /F`)", pid)
}
