package bridge

import (
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestProcessOnPort: on Linux the holder of a listening port is this test
// process; a free port has none; a bad port is unknown. Elsewhere it is
// unknown, never wrong.
func TestProcessOnPort(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	h, ok := ProcessOnPort(port)
	if runtime.GOOS == "linux" {
		if !ok || h.PID != os.Getpid() || h.Name == "" {
			t.Fatalf("holder %+v, %v; want this process (pid %d)", h, ok, os.Getpid())
		}
	} else if ok {
		t.Fatalf("holder %+v on %s, where ProcessOnPort does not look", h, runtime.GOOS)
	}
	_ = ln.Close()
	if h, ok := ProcessOnPort(port); ok {
		t.Fatalf("a closed port is held by %+v", h)
	}
	for _, bad := range []string{"", "x", "0", "70000"} {
		if _, ok := ProcessOnPort(bad); ok {
			t.Errorf("port %q has a holder", bad)
		}
	}
}
