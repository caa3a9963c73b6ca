package bridge

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// The host file: while a process is the bridge host it keeps
// <config dir>/host-<port>.json naming its pid. A host that is stopped
// (SIGSTOP, a debugger, a suspended laptop) still holds the port and its
// kernel still accepts connections, but nothing answers, not even /health;
// the file is how a fresh process tells such a host from another program
// and names it.

// hostRecord is the content of a host file.
type hostRecord struct {
	PID       int    `json:"pid"`
	Port      int    `json:"port"`
	StartedAt int64  `json:"startedAt"` // Unix ms
	Version   string `json:"version"`
}

// hostFilePath is the host file for port in dir, or "" without a dir.
func hostFilePath(dir string, port int) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "host-"+strconv.Itoa(port)+".json")
}

// writeHostFile records this process as the host (through a temporary
// file and a rename, so a reader never sees half a record).
func writeHostFile(path string, rec hostRecord) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".host-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name()) // best effort: the write error is the one to report
		return fmt.Errorf("write %s: %v %v", path, werr, cerr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name()) // best effort, as above
		return err
	}
	return nil
}

// readHostFile reads a host file; ok is false if there is none or it is
// not one (at most 4 KiB is read).
func readHostFile(path string) (hostRecord, bool) {
	if path == "" {
		return hostRecord{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return hostRecord{}, false
	}
	defer func() { _ = f.Close() }() // read only
	var rec hostRecord
	buf := make([]byte, 4<<10)
	n, _ := f.Read(buf)
	if json.Unmarshal(buf[:n], &rec) != nil || rec.PID <= 0 {
		return hostRecord{}, false
	}
	return rec, true
}

// removeHostFile removes the host file if it still names pid: the next host
// may already have written its own.
func removeHostFile(path string, pid int) {
	if rec, ok := readHostFile(path); ok && rec.PID == pid {
		_ = os.Remove(path) // best effort: a stale file is checked against a live pid
	}
}

// HostNotAnsweringError means a studio-bridge host process holds the port
// but does not answer: it is stopped or hung. It carries HOST_UNAVAILABLE.
type HostNotAnsweringError struct {
	Addr string
	PID  int
	Err  error // what the probe saw
}

func (e *HostNotAnsweringError) Error() string {
	_, port, _ := net.SplitHostPort(e.Addr)
	return fmt.Sprintf("a studio-bridge host (pid %d) holds port %s but does not answer (it accepts connections, then says nothing): "+
		"it is stopped (Ctrl-Z, SIGSTOP, a debugger, a suspended machine) or hung. %s, then run the command again",
		e.PID, port, resumeAdvice(e.PID))
}

// Unwrap gives the error's code, HOST_UNAVAILABLE (exit code 3).
func (e *HostNotAnsweringError) Unwrap() error {
	return &protocol.Error{Code: protocol.CodeHostUnavailable, Message: e.Error()}
}

// notAnswering names the host holding addr when the host file says a live
// process other than this one is the host there; nil otherwise.
func notAnswering(dir, addr string, probeErr error) error {
	_, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	rec, ok := readHostFile(hostFilePath(dir, port))
	if !ok || rec.Port != port || rec.PID == os.Getpid() || !processAlive(rec.PID) {
		return nil
	}
	return &HostNotAnsweringError{Addr: addr, PID: rec.PID, Err: probeErr}
}

// hostFileRecord is this process's record as the host on port.
func hostFileRecord(port int, version string, started time.Time) hostRecord {
	return hostRecord{PID: os.Getpid(), Port: port, StartedAt: started.UnixMilli(), Version: version}
}
