package bridge

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func startStranger(t *testing.T, port int) *http.Server {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "<html>some other dev server</html>")
	})}
	go srv.Serve(ln)
	return srv
}

// TestRefusedJoinFailsAtOnce: a host that refuses this process's hello (an
// older host that speaks none of its protocol versions) ends Connect at once
// with the host's reason, instead of retrying until JoinTimeout.
func TestRefusedJoinFailsAtOnce(t *testing.T) {
	kit.UseConfigDir(t)
	port := kit.FreePort(t)
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		if _, _, err := c.Read(r.Context()); err == nil {
			reject(c, protocol.CodeUnsupportedProtocol, "this host speaks protocol 0 only")
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	start := time.Now()
	_, err = Connect(context.Background(), Options{Port: port, Log: testLog(t), JoinTimeout: 3 * time.Second})
	if protocol.CodeOf(err) != protocol.CodeUnsupportedProtocol || !strings.Contains(err.Error(), "protocol 0 only") {
		t.Fatalf("want the host's UNSUPPORTED_PROTOCOL reason, got %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a refused join took %s: it must not be retried", took)
	}
}
