package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// pluginConn is one plugin session on the host.
type pluginConn struct {
	*peer
	info   protocol.SessionInfo // guarded by Host.mu
	nextID atomic.Uint64

	mu      sync.Mutex
	pending map[string]*pendingCall
	gone    bool
}

type pendingCall struct {
	action   string
	progress func(json.RawMessage)
	done     chan callResult
	asm      *protocol.Assembler
}

type callResult struct {
	payload json.RawMessage
	err     error
}

func (pc *pluginConn) addPending(id string, p *pendingCall) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.gone {
		return false
	}
	pc.pending[id] = p
	return true
}

func (pc *pluginConn) takePending(id string) *pendingCall {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	p := pc.pending[id]
	delete(pc.pending, id)
	return p
}

func (pc *pluginConn) lookupPending(id string) *pendingCall {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.pending[id]
}

func (pc *pluginConn) goneError(action string) error {
	return protocol.Errorf(protocol.CodeSessionDisconnected,
		"Studio session %s disconnected before answering %s", pc.info.SessionID, action)
}

// failAll ends every pending call: the plugin is gone and will not answer.
func (pc *pluginConn) failAll() {
	pc.mu.Lock()
	pending := pc.pending
	pc.pending = nil
	pc.gone = true
	pc.mu.Unlock()
	for _, p := range pending {
		p.done <- callResult{err: pc.goneError(p.action)}
	}
}

// track registers a connection handler so Shutdown can wait for it; it
// fails once the host is draining.
func (h *Host) track(wg *sync.WaitGroup) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining.Load() {
		return false
	}
	wg.Add(1)
	return true
}

// accept upgrades a request on /plugin or /client to a WebSocket with the
// endpoint's frame limit. On success the caller must call h.conns.Done when
// its handler returns.
func (h *Host) accept(w http.ResponseWriter, r *http.Request, limit int64) (*websocket.Conn, bool) {
	if !h.track(&h.conns) {
		http.Error(w, "studio-bridge host is shutting down; reconnect in a moment", http.StatusServiceUnavailable)
		return nil, false
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		h.conns.Done()
		h.cfg.Log.Debug("WebSocket upgrade failed", "path", r.URL.Path, "err", err)
		return nil, false
	}
	c.SetReadLimit(limit)
	return c, true
}

func (h *Host) servePlugin(w http.ResponseWriter, r *http.Request) {
	c, ok := h.accept(w, r, protocol.PluginMaxFrameBytes)
	if !ok {
		return
	}
	defer h.conns.Done()
	hello, version, ok := h.pluginHandshake(c)
	if !ok {
		return
	}
	log := h.cfg.Log.With("instance", hello.InstanceID, "context", hello.Context)
	pc := &pluginConn{
		peer:    newPeer(c, log, h.cfg.Heartbeat, protocol.PluginMaxFrameBytes),
		pending: map[string]*pendingCall{},
	}
	h.registerPlugin(pc, hello, version)
	log = log.With("session", pc.info.SessionID)
	log.Info("plugin session connected", "place", hello.PlaceName, "plugin", hello.PluginVersion)
	if want := h.cfg.PluginVersion; hello.PluginVersion != "" && want != "" && olderVersion(hello.PluginVersion, want) {
		log.Warn("plugin is older than the one this studio-bridge installs; run `studio-bridge install-plugin` and reload plugins in Studio",
			"plugin", hello.PluginVersion, "installs", want)
	}
	err := pc.run(h.ctx, func(m protocol.Message) { h.handlePlugin(pc, m) })
	h.unregisterPlugin(pc)
	pc.failAll()
	log.Info("plugin session disconnected", "reason", err)
}

// pluginHandshake reads the hello and answers a reject when it is unusable.
func (h *Host) pluginHandshake(c *websocket.Conn) (protocol.Hello, int, bool) {
	hello, ok := readHello[protocol.Hello](h.ctx, c)
	if !ok {
		return hello, 0, false
	}
	v, perr := protocol.ValidateHello(hello)
	if perr != nil {
		h.cfg.Log.Info("rejected plugin hello", "code", perr.Code, "reason", perr.Message)
		reject(c, perr.Code, perr.Message)
		return hello, 0, false
	}
	return hello, v, true
}

// readHello reads a peer's first frame, which must be a T, within the
// handshake timeout; anything else is rejected (and the socket closed).
func readHello[T protocol.Message](ctx context.Context, c *websocket.Conn) (T, bool) {
	var zero T
	ctx, cancel := context.WithTimeout(ctx, protocol.HandshakeTimeout)
	defer cancel()
	typ, data, err := c.Read(ctx)
	switch {
	case err != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			_ = c.Close(websocket.StatusPolicyViolation, "no hello within 10s")
		}
		_ = c.CloseNow()
		return zero, false
	case typ != websocket.MessageText:
		reject(c, protocol.CodeInvalidHello, "the hello must be a JSON text frame, not a binary one")
		return zero, false
	}
	m, err := protocol.Decode(data)
	if err != nil {
		reject(c, protocol.CodeInvalidHello, fmt.Sprintf("first frame must be a %s: %v", zero.Type(), err))
		return zero, false
	}
	hello, ok := m.(T)
	if !ok {
		reject(c, protocol.CodeInvalidHello, fmt.Sprintf("first frame must be a %s, got %q", zero.Type(), m.Type()))
		return zero, false
	}
	return hello, true
}

// reject tells a peer why it is refused, then closes with 1008.
func reject(c *websocket.Conn, code protocol.Code, msg string) {
	data, _ := protocol.Encode(protocol.Reject{Code: code, Message: msg})
	ctx, cancel := context.WithTimeout(context.Background(), protocol.WriteTimeout)
	defer cancel()
	if c.Write(ctx, websocket.MessageText, data) == nil {
		_ = c.Close(websocket.StatusPolicyViolation, truncateReason(string(code)+": "+msg))
	}
	_ = c.CloseNow()
}

// registerPlugin picks the session id, sends the welcome and makes the
// session visible. A reconnecting plugin keeps its previous id unless another
// window holds it; a second connection of the same DataModel replaces the
// first (whose socket the host may not yet know is dead).
func (h *Host) registerPlugin(pc *pluginConn, hello protocol.Hello, version int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := uuid.NewString()
	if prev := hello.PreviousSessionID; prev != "" && uuid.Validate(prev) == nil {
		old := h.plugins[prev]
		switch {
		case old == nil:
			id = prev
		case old.info.InstanceID == hello.InstanceID && old.info.Context == hello.Context:
			id = prev
			old.shut(protocol.CloseReplaced, "replaced by a newer connection of the same session")
		}
	}
	pc.info = protocol.SessionInfo{
		SessionID:     id,
		InstanceID:    hello.InstanceID,
		Context:       hello.Context,
		PlaceName:     hello.PlaceName,
		PlaceID:       hello.PlaceID,
		GameID:        hello.GameID,
		State:         hello.State,
		PluginVersion: hello.PluginVersion,
		Capabilities:  append([]string{}, hello.Capabilities...),
		ConnectedAt:   time.Now().UTC(),
	}
	if pc.info.State == "" {
		pc.info.State = protocol.StateEdit
	}
	_ = pc.send(protocol.Welcome{
		ProtocolVersion:     version,
		SessionID:           id,
		HeartbeatIntervalMs: int(h.cfg.Heartbeat / time.Millisecond),
		MaxFrameBytes:       protocol.PluginMaxFrameBytes,
		HostVersion:         h.cfg.Version,
	})
	h.plugins[id] = pc
	h.announceLocked(protocol.SessionConnected, pc.info)
}

func (h *Host) unregisterPlugin(pc *pluginConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.plugins[pc.info.SessionID] != pc {
		return // replaced by a newer connection
	}
	delete(h.plugins, pc.info.SessionID)
	h.announceLocked(protocol.SessionDisconnected, pc.info)
}

// announceLocked records a session change locally and tells every client,
// encoding the event once for all of them.
func (h *Host) announceLocked(kind string, s protocol.SessionInfo) {
	h.hub.apply(kind, s)
	if len(h.clients) == 0 {
		return
	}
	data, err := protocol.Encode(protocol.SessionEvent{Kind: kind, Session: s})
	if err != nil {
		h.cfg.Log.Error("encode session event", "err", err)
		return
	}
	for _, c := range h.clients {
		_ = c.sendEncoded(data)
	}
}

func (h *Host) handlePlugin(pc *pluginConn, m protocol.Message) {
	switch m := m.(type) {
	case protocol.Response:
		p := pc.takePending(m.ID)
		if p == nil {
			pc.notice(protocol.CodeUnknownRequest, "response for unknown or finished request", m.ID)
			return
		}
		p.done <- finishResponse(p, m)
	case protocol.Progress:
		if p := pc.lookupPending(m.ID); p != nil {
			if p.progress != nil {
				p.progress(m.Payload)
			}
		} else {
			pc.notice(protocol.CodeUnknownRequest, "progress for unknown or finished request", m.ID)
		}
	case protocol.Chunk:
		p := pc.lookupPending(m.ID)
		if p == nil {
			pc.notice(protocol.CodeUnknownRequest, "chunk for unknown or finished request", m.ID)
			return
		}
		if p.asm == nil {
			p.asm = protocol.NewAssembler(protocol.MaxPayloadBytes)
		}
		if err := p.asm.Add(m); err != nil {
			if pc.takePending(m.ID) != nil {
				p.done <- callResult{err: err}
				_ = pc.send(protocol.Cancel{ID: m.ID})
			}
		}
	case protocol.Event:
		h.pluginEvent(pc, m)
	case protocol.ErrorNotice:
		pc.log.Debug("plugin reported a protocol error", "code", m.Code, "message", m.Message, "ref", m.Ref)
	default:
		pc.notice(protocol.CodeUnknownMessage, fmt.Sprintf("a plugin may not send %q after the handshake", m.Type()), m.Type())
	}
}

func finishResponse(p *pendingCall, m protocol.Response) callResult {
	if !m.OK {
		return callResult{err: m.Error}
	}
	if m.Chunks > 0 {
		if p.asm == nil {
			p.asm = protocol.NewAssembler(protocol.MaxPayloadBytes)
		}
		payload, err := p.asm.Finish(m.Chunks)
		return callResult{payload: payload, err: err}
	}
	return callResult{payload: m.Payload}
}

func (pc *pluginConn) notice(code protocol.Code, msg, ref string) {
	pc.log.Debug("protocol error from plugin", "code", code, "message", msg)
	_ = pc.send(protocol.ErrorNotice{Code: code, Message: msg, Ref: ref})
}

// stateChange is the payload of a plugin "state" event; absent fields keep
// their values.
type stateChange struct {
	State     *protocol.State `json:"state"`
	PlaceName *string         `json:"placeName"`
	PlaceID   *int64          `json:"placeId"`
	GameID    *int64          `json:"gameId"`
}

func (h *Host) pluginEvent(pc *pluginConn, ev protocol.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev.SessionID = pc.info.SessionID
	if ev.Event == "state" {
		var sc stateChange
		if err := json.Unmarshal(ev.Payload, &sc); err != nil || (sc.State != nil && !sc.State.Valid()) {
			pc.notice(protocol.CodeInvalidPayload, "state event payload must be {state, placeName?, placeId?, gameId?} with a valid state", "state")
			return
		}
		if sc.State != nil {
			pc.info.State = *sc.State
		}
		if sc.PlaceName != nil {
			pc.info.PlaceName = *sc.PlaceName
		}
		if sc.PlaceID != nil {
			pc.info.PlaceID = *sc.PlaceID
		}
		if sc.GameID != nil {
			pc.info.GameID = *sc.GameID
		}
		if h.plugins[pc.info.SessionID] == pc {
			h.announceLocked(protocol.SessionUpdated, pc.info)
		}
	}
	h.hub.publish(ev)
	if watchers := h.watching[ev.SessionID]; len(watchers) > 0 {
		data, err := protocol.Encode(ev)
		if err != nil {
			return
		}
		for c := range watchers {
			_ = c.sendEncoded(data)
		}
	}
}
