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

// Health asks the host on port for /health and decodes the answer into h
// (a *bridge.Health; kit does not import bridge, whose tests use kit).
func Health(port int, h any) error {
	resp, err := healthClient.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, protocol.PathHealth))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, h); err != nil {
		return fmt.Errorf("GET /health = %s %q", resp.Status, body)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /health = %s", resp.Status)
	}
	return nil
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
