package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// link is a joined client's connection to the host. Every action goes
// through it; when it breaks, its in-flight calls fail with UNKNOWN_OUTCOME.
type link struct {
	*peer
	hub         *hub
	hostStarted time.Time
	// awaiting and settled are the welcome's word on the lost host's
	// sessions (ClientWelcome.Awaiting, Settled); from a host that says
	// neither, awaiting is what this client sent as returning.
	awaiting []string
	settled  bool
	nextID   atomic.Uint64
	lost     chan struct{}

	mu      sync.Mutex
	pending map[string]*pendingCall
	broken  bool
}

// dialLink joins the host at addr ("127.0.0.1:38741"), proving it holds
// token, the user's token, once the host has proved it holds it too. returning lists the sessions of the host this process lost,
// if it is rejoining after a failover (sent only if there are at most
// protocol.MaxReturning). dial, when not nil, replaces the TCP dial
// (Options.Dial).
func dialLink(ctx context.Context, addr string, dial func(context.Context, string, string) (net.Conn, error), version string, token authtoken.Token, log *slog.Logger, heartbeat time.Duration, hb *hub, returning []string) (*link, error) {
	dctx, cancel := context.WithTimeout(ctx, protocol.HandshakeTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(dctx, "ws://"+addr+protocol.PathClient, &websocket.DialOptions{
		HTTPClient: &http.Client{Timeout: protocol.HandshakeTimeout, Transport: upgradeTransport{dial: dial}},
	})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusServiceUnavailable {
			return nil, errDraining
		}
		return nil, fmt.Errorf("join bridge host at %s: %w", addr, err)
	}
	c.SetReadLimit(protocol.ClientMaxFrameBytes)
	if len(returning) > protocol.MaxReturning {
		returning = nil
	}
	welcome, err := clientHandshake(dctx, c, addr, version, token, returning)
	if err != nil {
		_ = c.CloseNow()
		return nil, err
	}
	if heartbeat <= 0 {
		heartbeat = time.Duration(welcome.HeartbeatIntervalMs) * time.Millisecond
	}
	if heartbeat <= 0 {
		heartbeat = protocol.DefaultHeartbeatInterval
	}
	l := &link{
		peer:        newPeer(c, log, heartbeat, protocol.ClientMaxFrameBytes),
		hub:         hb,
		hostStarted: time.UnixMilli(welcome.HostStartedAt),
		awaiting:    welcome.Awaiting,
		settled:     welcome.Settled,
		lost:        make(chan struct{}),
		pending:     map[string]*pendingCall{},
	}
	if !welcome.Settled && len(welcome.Awaiting) == 0 {
		l.awaiting = returning // a host that says neither (an older version)
	}
	hb.reset(welcome.Sessions)
	for _, sid := range hb.watched() {
		_ = l.send(protocol.Watch{SessionID: sid})
	}
	go l.serve()
	return l, nil
}

// readWelcome reads the host's first frame, which lists every session
// (300 KB for a thousand). It reads into one generous buffer rather than
// io.ReadAll's growing ones: in a one-shot process each fresh page costs a
// fault, and pages never written are never touched.
func readWelcome(ctx context.Context, c *websocket.Conn) ([]byte, error) {
	_, r, err := c.Reader(ctx)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, 1<<20)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

var errDraining = errors.New("bridge host is handing over")

// errNotSent means the link broke before a request left this process: it
// cannot have run, so the Bridge may send it again after the failover.
var errNotSent = protocol.Errorf(protocol.CodeHostUnavailable, "the link to the bridge host closed before the request was sent")

func (l *link) serve() {
	err := l.run(context.Background(), l.handle)
	l.mu.Lock()
	pending := l.pending
	l.pending = nil
	l.broken = true
	l.mu.Unlock()
	for _, p := range pending {
		p.done <- callResult{err: protocol.Errorf(protocol.CodeUnknownOutcome,
			"lost the bridge host while %s was in flight; it may or may not have run in Studio", p.action)}
	}
	l.log.Debug("link to bridge host ended", "reason", err)
	close(l.lost)
}

func (l *link) handle(m protocol.Message) {
	switch m := m.(type) {
	case protocol.SessionEvent:
		l.hub.apply(m.Kind, m.Session)
	case protocol.Event:
		l.hub.publish(m)
	case protocol.Response:
		l.mu.Lock()
		p := l.pending[m.ID]
		delete(l.pending, m.ID)
		l.mu.Unlock()
		if p != nil {
			p.done <- finishResponse(p, m)
		}
	case protocol.Progress:
		l.mu.Lock()
		p := l.pending[m.ID]
		l.mu.Unlock()
		if p != nil && p.progress != nil {
			p.progress(m.Payload)
		}
	case protocol.HostTransfer:
		l.log.Info("bridge host is handing over", "reason", m.Reason)
	case protocol.ErrorNotice:
		l.log.Debug("host reported a protocol error", "code", m.Code, "message", m.Message, "ref", m.Ref)
	}
}

func (l *link) call(ctx context.Context, sessionID, action string, payload json.RawMessage, timeout time.Duration, onProgress func(json.RawMessage)) (json.RawMessage, error) {
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	id := strconv.FormatUint(l.nextID.Add(1), 10)
	p := &pendingCall{action: action, progress: onProgress, done: make(chan callResult, 1)}
	l.mu.Lock()
	if l.broken {
		l.mu.Unlock()
		return nil, errNotSent
	}
	l.pending[id] = p
	l.mu.Unlock()
	req := protocol.Request{ID: id, Action: action, SessionID: sessionID, TimeoutMs: timeout.Milliseconds(), Payload: payload}
	if err := l.send(req); err != nil {
		l.take(id)
		return nil, errNotSent
	}
	// The host enforces the timeout; the margin covers a host that stops
	// answering without closing the socket.
	return await(ctx, p, timeout+2*time.Second,
		func() bool { return l.take(id) != nil },
		func() { _ = l.send(protocol.Cancel{ID: id}) },
		protocol.Errorf(protocol.CodeTimeout, "%s timed out after %s (no answer from the bridge host)", action, timeout))
}

func (l *link) take(id string) *pendingCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.pending[id]
	delete(l.pending, id)
	return p
}
