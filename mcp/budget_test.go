package mcp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// stalledPost opens a connection to addr and sends a POST declaring a
// body of n bytes, of which it sends only a little.
func stalledPost(t *testing.T, addr string, n int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n[", addr, n); err != nil {
		t.Fatal(err)
	}
	return c
}

// statusOf reads the HTTP status the server answers on c.
func statusOf(t *testing.T, c net.Conn) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a hang guard, not a speed bound
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// Attack 8: connections that each stall a large body. Bodies being read
// share a byte budget (those that find no room are answered 503 with
// Retry-After), every stalled body is answered 408 once overdue, and a
// real request is served meanwhile and afterwards.
func TestStalledBodiesAreBoundedAndTimedOut(t *testing.T) {
	t.Parallel()
	const max = 64 << 10
	lim := bodyLimits{timeout: 500 * time.Millisecond, max: max, budget: semaphore.NewWeighted(2 * max)}
	srv := httptest.NewServer(boundBodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, r.Body)
	}), lim))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	var stalled []net.Conn
	for range 4 {
		stalled = append(stalled, stalledPost(t, addr, max))
	}
	for i, c := range stalled {
		switch got := statusOf(t, c); got {
		case http.StatusRequestTimeout, http.StatusServiceUnavailable:
		default:
			t.Fatalf("stalled body %d answered %d, want 408 (overdue) or 503 (no room)", i, got)
		}
	}
	if !lim.budget.TryAcquire(2 * max) {
		t.Fatal("the stalled bodies' budget was not given back")
	}
	lim.budget.Release(2 * max)

	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != `{"jsonrpc":"2.0"}` {
		t.Fatalf("a real request got %d %q", resp.StatusCode, body)
	}
}

// A body declaring more than the bound is refused before a byte is read.
func TestDeclaredOversizeBodyRefusedUpFront(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(BoundBodies(http.NotFoundHandler()))
	defer srv.Close()
	c := stalledPost(t, strings.TrimPrefix(srv.URL, "http://"), MaxHTTPBodyBytes+1)
	if got := statusOf(t, c); got != http.StatusRequestEntityTooLarge {
		t.Fatalf("answered %d, want 413", got)
	}
}

// LimitConns keeps at most n connections open: the next is accepted only
// once one closes.
func TestLimitConns(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := LimitConns(ln, 2)
	defer l.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	defer second.Close()
	select {
	case c := <-accepted:
		c.Close()
		t.Fatal("a third connection was accepted while two were open")
	case <-time.After(200 * time.Millisecond):
	}
	_ = first.Close()
	(<-accepted).Close()
}
