package kit

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// FreePort returns a loopback port that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// WaitFor polls cond until it holds, failing tb after d.
func WaitFor(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var healthClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Second}

// Health asks the host on port for /health and decodes the answer as H (a
// bridge.Health; kit does not import bridge, whose tests use kit).
func Health[H any](port int) (H, error) {
	var h H
	resp, err := healthClient.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, protocol.PathHealth))
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(body, &h); err != nil {
		return h, fmt.Errorf("GET /health = %s %q", resp.Status, body)
	}
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("GET /health = %s", resp.Status)
	}
	return h, nil
}

// WaitHealth polls the host on port's /health until it answers and ok
// holds of the answer, which it returns; it fails tb after d, with the last
// answer.
func WaitHealth[H any](tb testing.TB, port int, d time.Duration, what string, ok func(H) bool) H {
	tb.Helper()
	var last H
	var lastErr error
	deadline := time.Now().Add(d)
	for {
		last, lastErr = Health[H](port)
		if lastErr == nil && ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s: last /health %+v, %v", d, what, last, lastErr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// StopPID stops a process that is not our child (one a child started, such
// as an emulated Studio behind a launch script): a request to exit, then,
// after 5 s, force. It waits until the process is gone.
func StopPID(tb testing.TB, pid int) {
	tb.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		return // already gone
	}
	_ = askToExit(p)
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(25 * time.Millisecond)
	}
	if alive(pid) {
		_ = p.Kill()
	}
}
