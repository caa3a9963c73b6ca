//go:build !linux

package bridge

// portHolder does not look on this OS: finding a port's process needs cgo
// (macOS's libproc) or a helper program (Windows' GetExtendedTcpTable is
// reachable, but not worth a syscall table for a message's detail).
func processOnPort(int) (Holder, bool) { return Holder{}, false }
