package kit

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// StopPIDFile stops the process whose pid a wrapper script wrote to path
// (`echo $$ > path` before it execs the real program: how a test stands a
// script in for Studio and still stops exactly the process it started,
// never anything matched by name), with StopPID. It reports whether there
// was a process to stop: a missing file is a wrapper that never ran, not
// an error; a file that holds no pid fails tb.
func StopPIDFile(tb testing.TB, path string) bool {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return false // never started
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		tb.Errorf("pid file %s: %q", path, data)
		return false
	}
	StopPID(tb, pid)
	return true
}
