package bridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// clientConn is one joined studio-bridge process on the host.
type clientConn struct {
	*peer
	id string

	mu        sync.Mutex
	calls     map[string]context.CancelFunc // relayed calls by the client's id
	callBytes int                           // request payload bytes of calls (MaxCallBytesPerClient)

	watches int // sessions this client watches (guarded by Host.mu)
}

// addWatch records that cc relays sessionID's events, within
// MaxWatchesPerClient and MaxWatchIDBytes: a watch costs the host memory
// until the client leaves, so a client cannot make it grow without bound.
func (h *Host) addWatch(cc *clientConn, sessionID string) *protocol.Error {
	if len(sessionID) > protocol.MaxWatchIDBytes {
		return protocol.Errorf(protocol.CodeMalformedFrame, "watch sessionId is longer than %d bytes; session ids are UUIDs", protocol.MaxWatchIDBytes)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := h.watching[sessionID]
	if _, ok := subs[cc]; ok {
		return nil // already watching
	}
	if cc.watches >= protocol.MaxWatchesPerClient {
		return protocol.Errorf(protocol.CodeTooManyWatches,
			"this client already watches %d sessions, the most it may; unwatch one first", protocol.MaxWatchesPerClient)
	}
	if subs == nil {
		subs = map[*clientConn]struct{}{}
		h.watching[sessionID] = subs
	}
	subs[cc] = struct{}{}
	cc.watches++
	return nil
}

// clipRef keeps a peer-supplied ref short in an error notice.
func clipRef(s string) string {
	if len(s) > protocol.MaxWatchIDBytes {
		return s[:protocol.MaxWatchIDBytes]
	}
	return s
}

func (h *Host) serveClient(w http.ResponseWriter, r *http.Request) {
	c, ok := h.accept(w, r)
	if !ok {
		return
	}
	defer h.conns.Done()
	returning, version, ok := h.clientHandshake(c)
	if !ok {
		return
	}
	cc := &clientConn{id: uuid.NewString(), calls: map[string]context.CancelFunc{}}
	cc.peer = newPeer(c, h.cfg.Log.With("client", cc.id), h.cfg.Heartbeat, protocol.ClientMaxFrameBytes)
	cc.budget = h.clientFrameBudget
	cc.limits = &h.budgets

	h.mu.Lock()
	h.expectLocked(returning)
	awaiting, settled := h.awaitingLocked()
	sessions, err := h.hub.encodedSessions()
	if err == nil {
		err = cc.send(clientWelcomeWire{
			ProtocolVersion:     version,
			ClientID:            cc.id,
			HostVersion:         h.cfg.Version,
			HostStartedAt:       h.started.UnixMilli(),
			HeartbeatIntervalMs: int(h.cfg.Heartbeat / time.Millisecond),
			Sessions:            sessions,
			Awaiting:            awaiting,
			Settled:             settled,
		})
	}
	h.clients[cc.id] = cc
	h.mu.Unlock()
	if err != nil {
		cc.log.Error("welcome a client", "err", err)
	}
	cc.log.Debug("client joined")

	err = cc.run(h.ctx, func(m protocol.Message) { h.handleClient(cc, m) })

	h.mu.Lock()
	delete(h.clients, cc.id)
	for sid, subs := range h.watching {
		delete(subs, cc)
		if len(subs) == 0 {
			delete(h.watching, sid)
		}
	}
	h.mu.Unlock()
	cc.mu.Lock()
	for _, cancel := range cc.calls {
		cancel()
	}
	cc.mu.Unlock()
	cc.log.Debug("client left", "reason", err)
}

// clientWelcomeWire is protocol.ClientWelcome with the session list already
// encoded (the hub encodes it once per change, not once per joining client).
type clientWelcomeWire struct {
	ProtocolVersion     int             `json:"protocolVersion"`
	ClientID            string          `json:"clientId"`
	HostVersion         string          `json:"hostVersion"`
	HostStartedAt       int64           `json:"hostStartedAt"`
	HeartbeatIntervalMs int             `json:"heartbeatIntervalMs"`
	Sessions            json.RawMessage `json:"sessions"`
	Awaiting            []string        `json:"awaiting,omitempty"`
	Settled             bool            `json:"settled,omitempty"`
}

func (clientWelcomeWire) Type() string { return protocol.TypeClientWelcome }

// clientHandshake runs the host's half of the client handshake (client
// protocol 3): read client-hello, prove knowledge of the token over the
// client's nonce and a fresh one of ours (client-challenge), then check the
// client's proof (client-proof). A client of an older protocol is told
// another studio-bridge version holds the port; a wrong or missing proof
// gets UNAUTHORIZED naming the token file.
//
// It returns the sessions a rejoining client expects back (from its
// client-proof) and the negotiated version.
func (h *Host) clientHandshake(c *websocket.Conn) ([]string, int, bool) {
	hello, ok := readHello[protocol.ClientHello](h, c)
	if !ok {
		return nil, 0, false
	}
	v, perr := protocol.ValidateClientHello(hello)
	if perr != nil {
		if perr.Code == protocol.CodeUnsupportedProtocol {
			h.cfg.Log.Info("refused a client of another protocol version", "pid", hello.PID, "offered", hello.ProtocolVersions)
			reject(c, perr.Code, h.otherVersion(hello))
		} else {
			reject(c, perr.Code, perr.Message)
		}
		return nil, 0, false
	}
	clientNonce, err := authtoken.DecodeNonce(hello.Nonce)
	if err != nil {
		reject(c, protocol.CodeInvalidHello, "client-hello: "+err.Error())
		return nil, 0, false
	}
	if h.cfg.Token.Value == "" {
		reject(c, protocol.CodeUnauthorized, h.tokenHint(false))
		return nil, 0, false
	}
	key := authtoken.ClientKey(h.cfg.Token.Value)
	hostNonce, _ := authtoken.DecodeNonce(authtoken.NewNonce())
	challenge := protocol.ClientChallenge{
		Nonce: base64.RawURLEncoding.EncodeToString(hostNonce),
		Proof: authtoken.HostProof(key, clientNonce, hostNonce),
	}
	if err := writeHandshake(h.ctx, c, challenge, h.handshakeTimeout()); err != nil {
		_ = c.CloseNow()
		return nil, 0, false
	}
	answer, ok := readHello[protocol.ClientProof](h, c)
	if !ok {
		return nil, 0, false
	}
	if !authtoken.ProofEqual(answer.Proof, authtoken.ClientProof(key, clientNonce, hostNonce)) {
		h.cfg.Log.Info("refused a client: its proof of the token is wrong", "pid", hello.PID)
		reject(c, protocol.CodeUnauthorized, h.tokenHint(true))
		return nil, 0, false
	}
	if perr := protocol.ValidateReturning(protocol.TypeClientProof, answer.Returning); perr != nil {
		reject(c, perr.Code, perr.Message)
		return nil, 0, false
	}
	return answer.Returning, v, true
}

// otherVersion is the reject for a client of another client protocol: a
// process of an older (or newer) studio-bridge. It names this host's port,
// version and protocol, and what to do.
func (h *Host) otherVersion(hello protocol.ClientHello) string {
	port := "?"
	if a, ok := h.cfg.Listener.Addr().(*net.TCPAddr); ok {
		port = strconv.Itoa(a.Port)
	}
	return fmt.Sprintf("another studio-bridge version holds port %s: stop it or upgrade (this host is studio-bridge %s, client protocol %v; this process offered %v)",
		port, h.cfg.Version, protocol.SupportedVersions, hello.ProtocolVersions)
}

// writeHandshake sends one handshake frame within timeout.
func writeHandshake(ctx context.Context, c *websocket.Conn, m protocol.Message, timeout time.Duration) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, data)
}

// tokenHint is the reject message for a client without the right token: it
// says where the host's token lives (the close reason keeps only its first
// 123 bytes, so what matters comes first).
func (h *Host) tokenHint(presented bool) string {
	what := "no token"
	if presented {
		what = "wrong token"
	}
	if h.cfg.Token.Value == "" {
		return what + ": this bridge host has no token and refuses every client; restart it with " + authtoken.EnvToken + " set"
	}
	return fmt.Sprintf("%s: use the token in %s (`studio-bridge token` prints it; set %s to pass it elsewhere)",
		what, h.cfg.Token.Source, authtoken.EnvToken)
}

func (h *Host) handleClient(cc *clientConn, m protocol.Message) {
	switch m := m.(type) {
	case protocol.Request:
		h.relay(cc, m)
	case protocol.Cancel:
		cc.mu.Lock()
		cancel := cc.calls[m.ID]
		cc.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case protocol.Watch:
		if perr := h.addWatch(cc, m.SessionID); perr != nil {
			_ = cc.send(protocol.ErrorNotice{Code: perr.Code, Message: perr.Message, Ref: clipRef(m.SessionID)})
		}
	case protocol.Unwatch:
		h.mu.Lock()
		if subs := h.watching[m.SessionID]; subs != nil {
			if _, ok := subs[cc]; ok {
				delete(subs, cc)
				cc.watches--
				if len(subs) == 0 {
					delete(h.watching, m.SessionID)
				}
			}
		}
		h.mu.Unlock()
	case protocol.ErrorNotice:
		cc.log.Debug("client reported a protocol error", "code", m.Code, "message", m.Message)
	default:
		_ = cc.send(protocol.ErrorNotice{Code: protocol.CodeUnknownMessage,
			Message: fmt.Sprintf("a client may not send %q", m.Type()), Ref: m.Type()})
	}
}

// relay runs a client's request on its own goroutine and answers it under
// the client's id.
func (h *Host) relay(cc *clientConn, req protocol.Request) {
	if req.SessionID == "" {
		_ = cc.send(h.hostAction(req))
		return
	}
	cc.mu.Lock()
	if _, dup := cc.calls[req.ID]; dup {
		cc.mu.Unlock()
		_ = cc.send(protocol.ErrorNotice{Code: protocol.CodeMalformedFrame, Message: "request id already in flight", Ref: req.ID})
		return
	}
	if perr := callRoom(len(cc.calls), cc.callBytes, len(req.Payload)); perr != nil {
		cc.mu.Unlock()
		_ = cc.send(errorResponse(req.ID, perr))
		return
	}
	if !h.track(&h.inflight) {
		cc.mu.Unlock()
		_ = cc.send(errorResponse(req.ID, protocol.Errorf(protocol.CodeShuttingDown, "the bridge host is handing over; retry in a moment")))
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	cc.calls[req.ID] = cancel
	cc.callBytes += len(req.Payload)
	cc.mu.Unlock()
	h.conns.Add(1)
	go func() {
		defer h.conns.Done()
		defer h.inflight.Done()
		defer cancel()
		timeout := time.Duration(req.TimeoutMs) * time.Millisecond
		payload, err := h.call(ctx, req.SessionID, req.Action, req.Payload, timeout, func(p json.RawMessage) {
			_ = cc.send(protocol.Progress{ID: req.ID, Payload: p})
		})
		cc.mu.Lock()
		delete(cc.calls, req.ID)
		cc.callBytes -= len(req.Payload)
		cc.mu.Unlock()
		if err != nil {
			if h.ctx.Err() != nil {
				// The host is going down (Kill, or a hand-off that ran out
				// of time): answer nothing, so the client sees the link drop
				// and reports UNKNOWN_OUTCOME rather than a misleading
				// CANCELLED or SESSION_DISCONNECTED.
				return
			}
			_ = cc.send(errorResponse(req.ID, err))
			return
		}
		_ = cc.send(protocol.Response{ID: req.ID, OK: true, Payload: payload})
	}()
}

// callRoom refuses a relayed call past a client's bounds: the calls it has
// in flight, and their request payloads held together, so one client
// cannot make the host hold an unbounded number of requests.
func callRoom(calls, bytes, size int) *protocol.Error {
	switch {
	case calls >= protocol.MaxCallsPerClient:
		return protocol.Errorf(protocol.CodeHostBusy,
			"this client already has %d calls in flight, the most the host relays for one client; wait for one to finish", calls)
	case calls > 0 && bytes+size > protocol.MaxCallBytesPerClient:
		return protocol.Errorf(protocol.CodeHostBusy,
			"this client's calls in flight already carry %d bytes of requests; with this one (%d bytes) they would pass the %d the host holds for one client; wait for one to finish",
			bytes, size, protocol.MaxCallBytesPerClient)
	}
	return nil
}

// hostAction answers requests addressed to the host itself.
func (h *Host) hostAction(req protocol.Request) protocol.Response {
	switch req.Action {
	case "sessions":
		sessions, _ := h.hub.snapshot()
		payload, err := json.Marshal(struct {
			Sessions []protocol.SessionInfo `json:"sessions"`
		}{sessions})
		if err != nil {
			return errorResponse(req.ID, err)
		}
		return protocol.Response{ID: req.ID, OK: true, Payload: payload}
	}
	return errorResponse(req.ID, protocol.Errorf(protocol.CodeUnknownAction,
		"unknown host action %q; name a sessionId to send an action to a plugin", req.Action))
}

func errorResponse(id string, err error) protocol.Response {
	var perr *protocol.Error
	if !errors.As(err, &perr) {
		perr = &protocol.Error{Code: protocol.CodeInternal, Message: err.Error()}
	}
	return protocol.Response{ID: id, OK: false, Error: perr}
}
