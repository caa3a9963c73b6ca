package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// pluginSession is one DataModel as the host sees it: its record, its resume
// secret and its unanswered requests. It is attached to its window's socket,
// which may carry other sessions too, and it outlives a dropped socket for the resume grace
// (PROTOCOL.md 12.7), moving to whichever socket re-attaches it with its
// secret.
type pluginSession struct {
	h        *Host
	log      *slog.Logger
	nextID   atomic.Uint64
	lastSeen atomic.Int64 // unix nanos of the session's latest frame (its liveness)
	// silentAtLoss is how long the session had sent nothing when it lost
	// its socket (set by holdLocked under the host's lock).
	silentAtLoss time.Duration

	// Guarded by h.mu.
	info     protocol.SessionInfo
	secret   string
	sock     *pluginSocket // the socket carrying it; nil while held in the grace
	grace    *time.Timer
	graceGen int // bumped whenever the session is held, so a stale timer is a no-op
	ended    bool

	mu      sync.Mutex // guards pending, cancels, gone and the fields of pendingCall
	pending map[string]*pendingCall
	cancels []string // sent requests withdrawn while held: cancelled after the resume
	gone    bool

	wmu sync.Mutex // serialises the frames of one request (chunks, then the request)
}

type pendingCall struct {
	action   string
	progress func(json.RawMessage)
	done     chan callResult // capacity 1: exactly one result is delivered
	asm      *protocol.Assembler
	seq      uint64
	payload  json.RawMessage
	sent     bool // written to some socket: the plugin may have it
	acked    bool // the plugin acknowledged it
}

type callResult struct {
	payload json.RawMessage
	err     error
}

func newSession(h *Host, info protocol.SessionInfo, secret string) *pluginSession {
	s := &pluginSession{
		h:       h,
		info:    info,
		secret:  secret,
		pending: map[string]*pendingCall{},
		log:     h.cfg.Log.With("session", info.SessionID, "instance", info.InstanceID, "context", info.Context),
	}
	s.seen()
	return s
}

func (s *pluginSession) id() string { return s.info.SessionID } // immutable once created

func (s *pluginSession) seen() { s.lastSeen.Store(time.Now().UnixNano()) }

// call runs action on this session: it is the one place where requests
// reach plugins, for local callers and relayed clients alike.
func (s *pluginSession) call(ctx context.Context, action string, payload json.RawMessage, timeout time.Duration, onProgress func(json.RawMessage)) (json.RawMessage, error) {
	if err := s.checkSize(action, payload); err != nil {
		return nil, err
	}
	n := s.nextID.Add(1)
	id := strconv.FormatUint(n, 10)
	p := &pendingCall{action: action, progress: onProgress, done: make(chan callResult, 1), seq: n, payload: payload}
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return nil, s.goneError(action)
	}
	s.pending[id] = p
	s.mu.Unlock()
	defer s.releaseChunks(p)

	if sock := s.socket(); sock != nil {
		// A write that fails means the socket is dropping; the call stays
		// pending and is re-sent when the session is re-attached.
		_ = s.transmit(sock, id, p)
	}
	var wasSent bool
	return await(ctx, p, timeout,
		func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.pending[id] != p {
				return false
			}
			delete(s.pending, id)
			wasSent = p.sent
			return true
		},
		func() { s.cancel(id, wasSent) },
		protocol.Errorf(protocol.CodeTimeout, "%s timed out after %s", action, timeout))
}

// checkSize refuses a payload the plugin cannot receive before anything is
// sent: a plugin takes chunked requests up to MaxRequestPayloadBytes.
func (s *pluginSession) checkSize(action string, payload json.RawMessage) error {
	if len(payload) > protocol.MaxRequestPayloadBytes {
		return protocol.Errorf(protocol.CodePayloadTooLarge,
			"%s payload is %d bytes; a Studio plugin accepts at most %d", action, len(payload), protocol.MaxRequestPayloadBytes)
	}
	return nil
}

// socket is the socket carrying the session now, or nil while it is held.
func (s *pluginSession) socket() *pluginSocket {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.sock
}

// transmit writes one pending request to sock: a payload over
// MaxChunkBytes goes as chunks first, then the request (PROTOCOL.md 12.11).
// Large requests wait for room in the socket's queue instead of overrunning
// it.
func (s *pluginSession) transmit(sock *pluginSocket, id string, p *pendingCall) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	if s.pending[id] != p {
		s.mu.Unlock()
		return nil // answered or withdrawn meanwhile
	}
	p.sent = true
	s.mu.Unlock()

	req := protocol.Request{SessionID: s.id(), ID: id, Action: p.action, Payload: p.payload}
	if len(p.payload) > protocol.MaxChunkBytes {
		parts := protocol.Split(p.payload, protocol.MaxChunkBytes)
		for i, part := range parts {
			data, err := protocol.Encode(protocol.Chunk{SessionID: req.SessionID, ID: id, Seq: i, Data: part})
			if err != nil {
				return err
			}
			if err := sock.sendWait(data); err != nil {
				return err
			}
		}
		req.Payload, req.Chunks = nil, len(parts)
	}
	data, err := protocol.Encode(req)
	if err != nil {
		return err
	}
	return sock.sendWait(data)
}

// cancel tells the plugin a withdrawn request is no longer wanted, best
// effort; while the session is held, after it is re-attached.
func (s *pluginSession) cancel(id string, wasSent bool) {
	sock := s.socket()
	switch {
	case sock != nil:
		_ = sock.send(protocol.Cancel{SessionID: s.id(), ID: id})
	case wasSent:
		s.mu.Lock()
		if len(s.cancels) < 256 {
			s.cancels = append(s.cancels, id)
		}
		s.mu.Unlock()
	}
}

// chunksFor returns the assembler of a pending call's chunked reply,
// charged to the host's ReassemblyBudgetBytes, creating it on the first
// chunk; nil once the call is no longer pending (its chunks are dropped).
func (s *pluginSession) chunksFor(id string, p *pendingCall) *protocol.Assembler {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[id] != p {
		return nil
	}
	if p.asm == nil {
		p.asm = protocol.NewChargedAssembler(protocol.MaxPayloadBytes, s.h.reassembly)
	}
	return p.asm
}

// releaseChunks gives back what a finished call's chunks were charged:
// answered, failed, timed out or cancelled alike.
func (s *pluginSession) releaseChunks(p *pendingCall) {
	s.mu.Lock()
	asm := p.asm
	s.mu.Unlock()
	if asm != nil {
		asm.Release()
	}
}

func (s *pluginSession) take(id string) *pendingCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending[id]
	delete(s.pending, id)
	return p
}

func (s *pluginSession) lookup(id string) *pendingCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[id]
}

// ack marks a request as having reached the plugin.
func (s *pluginSession) ack(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pending[id]; p != nil {
		p.acked = true
	}
}

// resumeWork splits the unanswered requests for a resume: the ids the plugin
// acknowledged (it will answer them), and the calls to send again in their
// original order (never acknowledged, or never sent). It also hands over the
// cancels owed since the session was held, and drops every reply's chunks
// that came on the old socket: the plugin sends a finished reply again
// whole, from chunk 0 (PROTOCOL.md 12.7).
func (s *pluginSession) resumeWork() (awaiting []string, resend []string, cancels []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type item struct {
		id  string
		seq uint64
	}
	var acked, unacked []item
	for id, p := range s.pending {
		if p.asm != nil {
			p.asm.Release()
			p.asm = nil
		}
		if p.acked {
			acked = append(acked, item{id, p.seq})
		} else {
			unacked = append(unacked, item{id, p.seq})
		}
	}
	bySeq := func(a, b item) int { return cmp.Compare(a.seq, b.seq) }
	slices.SortFunc(acked, bySeq)
	slices.SortFunc(unacked, bySeq)
	for _, it := range acked {
		awaiting = append(awaiting, it.id)
	}
	for _, it := range unacked {
		resend = append(resend, it.id)
	}
	cancels, s.cancels = s.cancels, nil
	return awaiting, resend, cancels
}

// resend writes the given pending requests again (same ids) on sock, then
// the owed cancels. The plugin deduplicates by id.
func (s *pluginSession) resend(sock *pluginSocket, ids, cancels []string) {
	for _, id := range ids {
		p := s.lookup(id)
		if p == nil {
			continue
		}
		if err := s.transmit(sock, id, p); err != nil {
			return // the new socket is dropping too; the next resume re-sends
		}
	}
	for _, id := range cancels {
		_ = sock.send(protocol.Cancel{SessionID: s.id(), ID: id})
	}
}

func (s *pluginSession) goneError(action string) error {
	return protocol.Errorf(protocol.CodeSessionDisconnected,
		"Studio session %s disconnected before answering %s", s.id(), action)
}

// failAll ends every unanswered request: the session is gone. When the
// plugin may have received a request (lost reports so), its caller learns
// the outcome is unknown rather than that it did not run.
func (s *pluginSession) failAll(lost bool) {
	s.mu.Lock()
	pending := s.pending
	s.pending = map[string]*pendingCall{}
	s.gone = true
	s.cancels = nil
	s.mu.Unlock()
	silent := time.Since(time.Unix(0, s.lastSeen.Load()))
	frozen := s.silentAtLoss >= (protocol.MissedHeartbeats-1)*s.h.cfg.Heartbeat
	for _, p := range pending {
		err := s.goneError(p.action)
		switch {
		case lost && p.sent && frozen && p.action == "exec":
			// The session went silent, not its network: a script that
			// never yields holds the DataModel's only Luau thread, and
			// nothing (heartbeats included) runs until it does.
			err = protocol.Errorf(protocol.CodeUnknownOutcome,
				"Studio session %s stopped answering while running exec: the script has not yielded for %s; Studio is frozen until it does "+
					"(a loop without task.wait or coroutine.yield; stop it in Studio or end Studio). It may still be running",
				s.id(), silent.Round(time.Second))
		case lost && p.sent:
			err = protocol.Errorf(protocol.CodeUnknownOutcome,
				"Studio session %s lost its connection while running %s and did not come back within %s; it may or may not have run",
				s.id(), p.action, s.h.resumeGrace())
		}
		p.done <- callResult{err: err}
	}
}

// finishResponse turns a plugin's response into the call's result.
func finishResponse(p *pendingCall, m protocol.Response) callResult {
	if !m.OK {
		return callResult{err: m.Error}
	}
	if m.Chunks > 0 {
		asm := p.asm // read only: the call is no longer pending
		if asm == nil {
			asm = protocol.NewAssembler(protocol.MaxPayloadBytes)
		}
		payload, err := asm.Finish(m.Chunks)
		return callResult{payload: payload, err: err}
	}
	return callResult{payload: m.Payload}
}
