//go:build windows

package e2e

import "testing"

func TestExecCloudInterrupt(t *testing.T) {
	t.Skip("Windows cannot deliver os.Interrupt to a child process (Process.Signal supports only Kill there); the Unix test covers the Ctrl-C path")
}
