package benchutil

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Status is a process's /proc/<pid>/status (Linux only): its fields by
// name, such as "VmRSS" → "98304 kB" and "Threads" → "9".
type Status map[string]string

// ReadStatus reads process pid's /proc/<pid>/status.
func ReadStatus(pid int) (Status, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	return ParseStatus(data), nil
}

// ParseStatus parses the text of a /proc/<pid>/status.
func ParseStatus(data []byte) Status {
	out := Status{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// Bytes is the size in field, such as VmRSS's "123456 kB", in bytes.
func (s Status) Bytes(field string) (int64, error) {
	num, unit, _ := strings.Cut(s[field], " ")
	if unit != "kB" {
		return 0, fmt.Errorf("%s %q: not a size in kB", field, s[field])
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", field, s[field], err)
	}
	return n * 1024, nil
}

// Memory returns process pid's resident memory and its peak so far (VmRSS
// and VmHWM) in MiB. It skips tb where processes have no
// /proc/<pid>/status (every system but Linux) and fails it when the file
// cannot be read or lacks them.
func Memory(tb testing.TB, pid int) (rss, peak float64) {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skip("a process's memory is read from /proc/<pid>/status, which only Linux has")
	}
	st, err := ReadStatus(pid)
	if err != nil {
		tb.Fatal(err)
	}
	r, err1 := st.Bytes("VmRSS")
	h, err2 := st.Bytes("VmHWM")
	if err1 != nil || err2 != nil {
		tb.Fatalf("memory of pid %d: %v, %v", pid, err1, err2)
	}
	return float64(r) / (1 << 20), float64(h) / (1 << 20)
}
