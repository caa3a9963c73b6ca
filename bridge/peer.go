package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// peer owns one WebSocket: a bounded outgoing queue drained by one writer,
// one reader that decodes frames, and a heartbeat that pings and drops the
// peer when it falls silent. It is used for both sides of both endpoints.
type peer struct {
	conn      *websocket.Conn
	log       *slog.Logger
	heartbeat time.Duration

	qmu    sync.Mutex
	queue  []frame       // frames waiting for the writer (guarded by qmu)
	queued int           // bytes queued or taken by the writer and not yet written
	wake   chan struct{} // capacity 1: the queue became non-empty
	room   chan struct{} // closed when queued bytes drop, if sendWait waits (guarded by qmu)

	closed   chan struct{}
	once     sync.Once
	code     websocket.StatusCode
	reason   string
	lastSeen atomic.Int64 // unix nanos of the last frame received

	// budget, when set (the host's peers), is the host's frame budget: a
	// frame past LargeFrameBytes reserves readLimit of it (readFrame).
	budget     *semaphore.Weighted
	readLimit  int64
	budgetWait atomic.Bool // waiting for the budget: alive, whatever lastSeen says
	// limits, when set (the host's peers), bound how long a frame's body
	// and a wait for the budget may take (budgets.go).
	limits *budgets
}

// frame is one queued write; a frame with a close code ends the connection
// after everything queued before it is written.
type frame struct {
	data   []byte
	close  websocket.StatusCode
	reason string
}

func newPeer(conn *websocket.Conn, log *slog.Logger, heartbeat time.Duration, readLimit int64) *peer {
	conn.SetReadLimit(readLimit)
	p := &peer{
		conn:      conn,
		log:       log,
		heartbeat: heartbeat,
		wake:      make(chan struct{}, 1),
		closed:    make(chan struct{}),
		readLimit: readLimit,
	}
	p.lastSeen.Store(time.Now().UnixNano())
	return p
}

// errPeerClosed is returned by send once the peer is gone.
var errPeerClosed = errors.New("connection closed")

// send queues m without blocking. A peer whose queue is full is closed as too
// slow rather than allowed to hold anyone else up.
func (p *peer) send(m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return p.sendEncoded(data)
}

// sendEncoded queues an already encoded frame (one encoding can serve many
// peers).
func (p *peer) sendEncoded(data []byte) error {
	select {
	case <-p.closed:
		return errPeerClosed
	default:
	}
	if !p.enqueue(frame{data: data}) {
		p.log.Warn("closing peer: outgoing queue full", "limitBytes", protocol.PeerQueueBytes)
		p.shut(protocol.CloseSlowPeer, "too slow: outgoing queue full")
		return errPeerClosed
	}
	return nil
}

// enqueue appends f unless PeerQueueBytes are already waiting. The queue's
// memory follows what is queued, not the bound, so an idle peer costs little
// and a burst (a log flood to a follower) has room.
func (p *peer) enqueue(f frame) bool {
	p.qmu.Lock()
	if p.queued > 0 && p.queued+len(f.data) > protocol.PeerQueueBytes {
		p.qmu.Unlock()
		return false
	}
	p.queue = append(p.queue, f)
	p.queued += len(f.data)
	p.qmu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

// sendWait queues an already encoded frame like sendEncoded, but when the
// queue is too full it waits for the writer to make room instead of closing
// the peer: for the frames of one large message (a chunked request) that may
// together exceed PeerQueueBytes. It fails once the peer is closed.
func (p *peer) sendWait(data []byte) error {
	for {
		select {
		case <-p.closed:
			return errPeerClosed
		default:
		}
		p.qmu.Lock()
		if p.queued == 0 || p.queued+len(data) <= protocol.PeerQueueBytes {
			p.queue = append(p.queue, frame{data: data})
			p.queued += len(data)
			p.qmu.Unlock()
			select {
			case p.wake <- struct{}{}:
			default:
			}
			return nil
		}
		if p.room == nil {
			p.room = make(chan struct{})
		}
		room := p.room
		p.qmu.Unlock()
		select {
		case <-room:
		case <-p.closed:
			return errPeerClosed
		}
	}
}

// closeAfter queues a close behind the frames already queued, so a goodbye or
// reject is delivered before the socket closes.
func (p *peer) closeAfter(code websocket.StatusCode, reason string) {
	if !p.enqueue(frame{close: code, reason: reason}) {
		p.shut(code, reason)
	}
}

// shut closes the connection now with code and reason.
func (p *peer) shut(code websocket.StatusCode, reason string) {
	p.once.Do(func() {
		p.code, p.reason = code, reason
		close(p.closed)
	})
}

// done is closed once the peer is shut down.
func (p *peer) done() <-chan struct{} { return p.closed }

// run serves the connection until it ends, calling handle for every decoded
// frame and answering bad frames with an error notice. handle runs on the
// reader goroutine: it must not block. run returns the reason the connection
// ended; ending ctx closes the connection with 1001.
func (p *peer) run(ctx context.Context, handle func(protocol.Message)) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return p.writeLoop(gctx) })
	g.Go(func() error { return p.heartbeatLoop(gctx) })
	g.Go(func() error { return p.readLoop(handle) }) // ends when the socket closes
	g.Go(func() error {
		select {
		case <-p.closed:
		case <-gctx.Done():
			if ctx.Err() != nil {
				// The owner is going away at once (a kill, or a shutdown
				// that ran out of time): no close handshake.
				p.shut(websocket.StatusGoingAway, "shutting down")
				_ = p.conn.CloseNow()
				return nil
			}
			p.shut(websocket.StatusNormalClosure, "")
		}
		p.closeConn()
		return nil
	})
	err := g.Wait()
	if err == nil {
		err = fmt.Errorf("closed: %s", p.reason)
	}
	return err
}

// closeConn performs the close handshake, bounded by WriteTimeout, which
// also unblocks the reader.
func (p *peer) closeConn() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.conn.Close(p.code, truncateReason(p.reason))
	}()
	select {
	case <-done:
	case <-time.After(protocol.WriteTimeout):
		_ = p.conn.CloseNow()
		<-done
	}
}

func (p *peer) writeLoop(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-p.closed:
			return nil
		case <-p.wake:
		}
		p.qmu.Lock()
		batch := p.queue
		p.queue = nil
		p.qmu.Unlock()
		for _, f := range batch {
			select {
			case <-p.closed:
				return nil // closed meanwhile (too slow, or shut down): drop the rest
			default:
			}
			if f.close != 0 {
				p.shut(f.close, f.reason)
				return nil
			}
			wctx, cancel := context.WithTimeout(ctx, protocol.WriteTimeout)
			err := p.conn.Write(wctx, websocket.MessageText, f.data)
			cancel()
			if err != nil {
				p.shut(websocket.StatusGoingAway, "write failed")
				return fmt.Errorf("write: %w", err)
			}
			p.qmu.Lock()
			p.queued -= len(f.data)
			if p.room != nil {
				close(p.room)
				p.room = nil
			}
			p.qmu.Unlock()
		}
	}
}

func (p *peer) readLoop(handle func(protocol.Message)) error {
	for {
		typ, data, release, err := p.readFrame()
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) || websocket.CloseStatus(err) == websocket.StatusMessageTooBig {
				p.log.Warn("closed peer: frame over the size limit")
			}
			p.shut(websocket.StatusNormalClosure, "")
			return fmt.Errorf("read: %w", err)
		}
		p.lastSeen.Store(time.Now().UnixNano())
		p.handleFrame(typ, data, handle)
		release()
	}
}

// handleFrame decodes one frame and hands it to handle, answering pings
// and bad frames itself.
func (p *peer) handleFrame(typ websocket.MessageType, data []byte, handle func(protocol.Message)) {
	if typ != websocket.MessageText {
		_ = p.send(protocol.ErrorNotice{Code: protocol.CodeMalformedFrame, Message: "binary frames are not part of the protocol; send JSON text frames"})
		return
	}
	m, err := protocol.Decode(data)
	if err != nil {
		var perr *protocol.Error
		if errors.As(err, &perr) {
			p.log.Debug("bad frame", "code", perr.Code, "err", perr.Message)
			_ = p.send(protocol.ErrorNotice{Code: perr.Code, Message: perr.Message})
		}
		return
	}
	switch m := m.(type) {
	case protocol.Ping:
		if m.SessionID != "" {
			handle(m) // a plugin session's ping: its owner answers
			return
		}
		_ = p.send(protocol.Pong{T: m.T})
	case protocol.Pong:
		if m.SessionID != "" {
			handle(m)
		}
	default:
		handle(m)
	}
}

func (p *peer) heartbeatLoop(ctx context.Context) error {
	t := time.NewTicker(p.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-p.closed:
			return nil
		case now := <-t.C:
			silent := now.Sub(time.Unix(0, p.lastSeen.Load()))
			if p.budgetWait.Load() {
				silent = 0
			}
			if silent > protocol.MissedHeartbeats*p.heartbeat {
				p.log.Info("dropping silent peer", "silent", silent.Round(time.Millisecond))
				p.shut(protocol.CloseHeartbeatTimeout, "heartbeat timeout")
				return fmt.Errorf("heartbeat timeout after %s", silent.Round(time.Millisecond))
			}
			_ = p.send(protocol.Ping{T: now.UnixMilli()})
		}
	}
}

// truncateReason keeps a close reason within the 123 bytes WebSocket allows.
func truncateReason(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:120]
}
