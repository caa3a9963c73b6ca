// Package memnet is an in-memory network for unit tests: a net.Listener
// whose connections are net.Pipe pairs, and the dialer and HTTP client that
// reach it. A bridge host served on one (bridge.HostConfig.Listener, or a
// whole Bridge through bridge.Options.Listen and Dial: bridgekit.InMemory), and
// the fake plugins and raw peers that dial it (fakeplugin.Config.HTTPClient),
// talk without a socket: no port to find free, nothing another test or
// process can take, nothing the kernel buffers or schedules, so the tests
// run side by side and as fast as the machine allows.
//
// coder/websocket's own wstest does the same but is internal to it. Tests
// about sockets themselves (ports, failover between processes, TCP
// buffering under floods) keep real loopback sockets.
package memnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// ports numbers listeners: each gets an address of its own, 127.0.0.1 with
// a port no real socket of the test process uses (above 65535), so that a
// URL names it and a host that reads its port from the address finds one.
var ports atomic.Int64

// Listener is an in-memory net.Listener; Dial connects to it.
type Listener struct {
	addr   *net.TCPAddr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	peers  atomic.Int64 // numbers the dialling ends' addresses
}

var _ net.Listener = (*Listener)(nil)

// Listen makes a Listener with an address of its own.
func Listen() *Listener {
	return &Listener{
		addr:   &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 70000 + int(ports.Add(1))},
		conns:  make(chan net.Conn),
		closed: make(chan struct{}),
	}
}

// ErrRefused is what Dial returns once the listener is closed: what a
// refused TCP connection is to the caller.
var ErrRefused = errors.New("memnet: connection refused (the listener is closed)")

// Accept waits for the next Dial, or returns net.ErrClosed once the
// listener is closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and refuses further dials; connections already made
// stay open, as accepted TCP connections do.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr is the listener's made-up loopback address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Port is the port of Addr: what a URL or fakeplugin.Config.Port names.
func (l *Listener) Port() int { return l.addr.Port }

// URL is the base URL of the listener's HTTP server ("http://127.0.0.1:N").
func (l *Listener) URL() string { return "http://" + l.addr.String() }

// Dial connects to the listener whatever network and address are asked
// (the signature of net.Dialer.DialContext, for http.Transport). It waits
// for Accept until ctx ends.
func (l *Listener) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	server, client := net.Pipe()
	peer := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(l.peers.Add(1))}
	select {
	case l.conns <- newConn(server, l.addr, peer):
		return newConn(client, peer, l.addr), nil
	case <-l.closed:
		_, _ = server.Close(), client.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Addr: l.addr, Err: ErrRefused}
	case <-ctx.Done():
		_, _ = server.Close(), client.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Addr: l.addr, Err: fmt.Errorf("memnet: %w", ctx.Err())}
	}
}

// HTTPClient is an HTTP client whose every connection is a Dial to the
// listener, without keep-alives (no idle connection outlives a request, for
// goleak). WebSocket dials take it as websocket.DialOptions.HTTPClient.
func (l *Listener) HTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: l.Dial, DisableKeepAlives: true, ForceAttemptHTTP2: false}}
}

// conn is one end of a pipe with loopback TCP addresses, so that code that
// logs or checks them sees what a loopback socket has, and with a send
// buffer, as a socket has: a bare net.Pipe write waits for the peer's read,
// so two peers that both write before they read (a host rejecting a hello
// while the peer sends its next frame) would deadlock where TCP does not.
// A write is queued (up to sendBuffer bytes; past that it waits, as a full
// socket buffer makes it) and a goroutine, running only while the queue
// holds something, delivers the queue in order. Close delivers what is
// queued (within lingerTimeout), then the peer reads EOF.
type conn struct {
	net.Conn
	local, remote net.Addr

	mu        sync.Mutex
	chunks    [][]byte
	queued    int  // bytes in chunks
	sending   bool // the sender goroutine runs
	closed    bool
	werr      error // the pipe's write error, once it failed
	wdeadline time.Time
	room      chan struct{} // signalled when the sender took a chunk
	done      chan struct{} // closed by Close
}

// sendBuffer bounds a conn's queued bytes, as a socket's send buffer.
const sendBuffer = 4 << 20

// lingerTimeout bounds how long a closed conn keeps trying to deliver what
// is queued to a peer that does not read.
const lingerTimeout = 5 * time.Second

func newConn(p net.Conn, local, remote net.Addr) *conn {
	return &conn{Conn: p, local: local, remote: remote, room: make(chan struct{}, 1), done: make(chan struct{})}
}

func (c *conn) Write(p []byte) (int, error) {
	var expired <-chan time.Time
	for {
		c.mu.Lock()
		switch {
		case c.closed:
			c.mu.Unlock()
			return 0, net.ErrClosed
		case c.werr != nil:
			err := c.werr
			c.mu.Unlock()
			return 0, err
		case c.queued < sendBuffer:
			c.chunks = append(c.chunks, bytes.Clone(p))
			c.queued += len(p)
			if !c.sending {
				c.sending = true
				go c.send()
			}
			c.mu.Unlock()
			return len(p), nil
		}
		dl := c.wdeadline
		c.mu.Unlock()
		if expired == nil && !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			t := time.NewTimer(d)
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-c.room:
		case <-c.done:
		case <-expired:
			return 0, os.ErrDeadlineExceeded
		}
	}
}

// send delivers the queue to the pipe until it is empty; a closed conn's
// pipe is closed once it is.
func (c *conn) send() {
	for {
		c.mu.Lock()
		if len(c.chunks) == 0 || c.werr != nil {
			c.sending = false
			if c.closed {
				_ = c.Conn.Close()
			}
			c.mu.Unlock()
			return
		}
		b := c.chunks[0]
		c.chunks[0] = nil
		c.chunks = c.chunks[1:]
		c.mu.Unlock()
		_, err := c.Conn.Write(b)
		c.mu.Lock()
		c.queued -= len(b)
		if err != nil {
			c.werr, c.chunks, c.queued = err, nil, 0
		}
		c.mu.Unlock()
		select {
		case c.room <- struct{}{}:
		default:
		}
	}
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return n, net.ErrClosed
		}
	}
	return n, err
}

// Close ends the conn: reads on this end end at once, what is queued is
// still delivered, then the peer reads EOF.
func (c *conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.closed = true
	close(c.done)
	_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
	if c.sending {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(lingerTimeout))
		return nil // the sender closes the pipe once the queue is out
	}
	return c.Conn.Close()
}

func (c *conn) SetDeadline(t time.Time) error {
	_ = c.SetWriteDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

// SetWriteDeadline bounds a Write's wait for room in the send buffer.
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.wdeadline = t
	c.mu.Unlock()
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }
