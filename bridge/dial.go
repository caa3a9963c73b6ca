package bridge

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// upgradeTransport is the http.RoundTripper a client joins the host with.
// It sends the one WebSocket upgrade request over a fresh TCP connection
// and hands that connection, as the response body, to the websocket
// package. net/http's pooled transport would add its connection goroutines
// and first-use code to every one-shot command (about 0.13 ms here) and
// would send a --remote join through an HTTP_PROXY, which cannot carry it.
//
// A --remote host is sent Host: localhost: a devcontainer reaches the host
// OS by another name, which the host would otherwise refuse as DNS
// rebinding. Only browsers are the threat there, and they cannot set Host.
//
// dial, when not nil, replaces the TCP dial (Options.Dial: tests on an
// in-memory network).
type upgradeTransport struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (t upgradeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !loopbackHost(r.Host) {
		r = r.Clone(r.Context())
		_, port, _ := net.SplitHostPort(r.URL.Host)
		r.Host = net.JoinHostPort("localhost", port)
	}
	ctx := r.Context()
	dial := t.dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	conn, err := dial(ctx, "tcp", r.URL.Host)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// Cancelling ctx unblocks the write and the read below.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	br := bufio.NewReader(conn)
	resp, err := func() (*http.Response, error) {
		if err := r.Write(conn); err != nil {
			return nil, err
		}
		return http.ReadResponse(br, r)
	}()
	stop()
	if ctx.Err() != nil { // cancelled or out of time, whatever the read said
		err = ctx.Err()
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	if resp.StatusCode == http.StatusSwitchingProtocols {
		resp.Body = upgradedConn{r: br, Conn: conn}
	} else {
		resp.Body = bodyAndConn{ReadCloser: resp.Body, conn: conn}
	}
	return resp, nil
}

// upgradedConn is the connection after a 101 answer; reads go through the
// buffer that read the answer, which may hold the first frame already.
type upgradedConn struct {
	r io.Reader
	net.Conn
}

func (u upgradedConn) Read(p []byte) (int, error) { return u.r.Read(p) }

// bodyAndConn is the body of any other answer; closing it closes the
// connection, which carries no further requests.
type bodyAndConn struct {
	io.ReadCloser
	conn net.Conn
}

func (b bodyAndConn) Close() error {
	_ = b.ReadCloser.Close()
	return b.conn.Close()
}
