package main

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd in try's console: Ctrl-C there reaches every process
// of the console, the host included, and try has no other way to send it.
func ownGroup(*exec.Cmd) {}

// interrupt does nothing on Windows, where a program cannot send another
// Ctrl-C without reaching itself: the console's Ctrl-C has reached the
// child already, and stop kills it after stopGrace if it is still running.
func interrupt(*os.Process) {}
