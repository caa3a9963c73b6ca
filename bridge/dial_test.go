package bridge

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestUpgradeTransport(t *testing.T) {
	t.Parallel()
	t.Run("other answers keep their body and close the connection", func(t *testing.T) {
		closed := make(chan struct{})
		srv := serveOnce(t, func(c net.Conn) {
			readRequest(t, c)
			io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 8\r\n\r\ndraining")
			if _, err := c.Read(make([]byte, 1)); err == io.EOF {
				close(closed)
			}
		})
		resp := roundTrip(t, context.Background(), srv, "")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || string(body) != "draining" {
			t.Fatalf("got %d %q", resp.StatusCode, body)
		}
		kit.Recv(t, closed, 5*time.Second, "closing the body to close the connection")
	})
	t.Run("a silent server fails at the deadline", func(t *testing.T) {
		srv := serveOnce(t, func(c net.Conn) { io.Copy(io.Discard, c) })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+srv+"/client", nil)
		// The connection's deadline is the request's: whichever fires
		// first ends the read.
		if _, err := (upgradeTransport{}).RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err %v, want the request's deadline", err)
		}
	})
	t.Run("cancelling the request ends it", func(t *testing.T) {
		srv := serveOnce(t, func(c net.Conn) { io.Copy(io.Discard, c) })
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+srv+"/client", nil)
		if _, err := (upgradeTransport{}).RoundTrip(req); !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	})
	t.Run("a remote name is sent as Host: localhost, bytes after the 101 are kept", func(t *testing.T) {
		host := make(chan string, 1)
		srv := serveOnce(t, func(c net.Conn) {
			req := readRequest(t, c)
			host <- req.Host
			io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nfirst frame")
			io.Copy(io.Discard, c)
		})
		_, port, _ := net.SplitHostPort(srv)
		resp := roundTrip(t, context.Background(), srv, "host.docker.internal:"+port)
		defer resp.Body.Close()
		if got := <-host; got != "localhost:"+port {
			t.Errorf("Host %q, want localhost:%s", got, port)
		}
		rwc, ok := resp.Body.(io.ReadWriteCloser)
		if resp.StatusCode != http.StatusSwitchingProtocols || !ok {
			t.Fatalf("got %d, body %T", resp.StatusCode, resp.Body)
		}
		buf := make([]byte, 64)
		n, _ := io.ReadAtLeast(rwc, buf, len("first frame"))
		if got := string(buf[:n]); got != "first frame" {
			t.Errorf("read %q after the 101", got)
		}
	})
}

// serveOnce accepts one connection on a loopback port and hands it to serve.
func serveOnce(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func readRequest(t *testing.T, c net.Conn) *http.Request {
	var b strings.Builder
	buf := make([]byte, 1)
	for !strings.HasSuffix(b.String(), "\r\n\r\n") {
		if _, err := c.Read(buf); err != nil {
			t.Errorf("read request: %v", err)
			return &http.Request{}
		}
		b.Write(buf)
	}
	req, err := http.ReadRequest(bufioReader(b.String()))
	if err != nil {
		t.Errorf("parse request: %v", err)
		return &http.Request{}
	}
	return req
}

func roundTrip(t *testing.T, ctx context.Context, addr, host string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/client", nil)
	if host != "" {
		req.Host = host
	}
	resp, err := (upgradeTransport{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
