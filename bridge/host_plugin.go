package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

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

// accept upgrades a request on /plugin or /client to a WebSocket whose read
// limit is PreHandshakeMaxFrameBytes until its handshake succeeds (newPeer
// then raises it to the endpoint's frame limit). On success the caller must
// call h.conns.Done when its handler returns.
func (h *Host) accept(w http.ResponseWriter, r *http.Request) (*websocket.Conn, bool) {
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
	c.SetReadLimit(protocol.PreHandshakeMaxFrameBytes)
	return c, true
}

// pluginSocket is one WebSocket on /plugin: it carries the sessions of one
// Studio window, attached and detached one by one.
type pluginSocket struct {
	*peer
	instanceID    string
	pluginVersion string

	// Guarded by Host.mu.
	sessions map[string]*pluginSession // attached to this socket now
	// held lists the sessions this socket has carried and that have not
	// ended: the answers to their pending requests are still accepted from
	// it after a move or a session heartbeat timeout (PROTOCOL.md 12.6).
	held    map[string]*pluginSession
	goodbye bool // the plugin said goodbye: its sessions end without a grace

	admitted    time.Time   // when it was counted without a session (budgets.go; guarded by Host.mu)
	attachTimer *time.Timer // closes the socket if no attach comes in time
}

func (h *Host) servePlugin(w http.ResponseWriter, r *http.Request) {
	c, ok := h.accept(w, r)
	if !ok {
		return
	}
	defer h.conns.Done()
	hello, version, ok := h.pluginHandshake(c)
	if !ok {
		return
	}
	log := h.cfg.Log.With("instance", hello.InstanceID, "pluginProtocol", version)
	sock := &pluginSocket{
		peer:          newPeer(c, log, h.cfg.Heartbeat, protocol.PluginMaxFrameBytes),
		instanceID:    hello.InstanceID,
		pluginVersion: hello.PluginVersion,
		sessions:      map[string]*pluginSession{},
		held:          map[string]*pluginSession{},
	}
	sock.budget = h.pluginFrameBudget
	sock.limits = &h.budgets
	if want := h.cfg.PluginVersion; hello.PluginVersion != "" && want != "" && olderVersion(hello.PluginVersion, want) {
		log.Warn("plugin is older than the one this studio-bridge installs; run `studio-bridge install-plugin` and reload plugins in Studio",
			"plugin", hello.PluginVersion, "installs", want)
	}
	h.mu.Lock()
	if version >= 2 {
		h.admitUnattachedLocked(sock)
	}
	h.sockets[sock] = struct{}{}
	h.mu.Unlock()

	log.Info("plugin socket connected", "plugin", hello.PluginVersion)
	h.conns.Add(1)
	go func() {
		defer h.conns.Done()
		h.sessionHeartbeats(sock)
	}()
	err := sock.run(h.ctx, func(m protocol.Message) { h.handleFrame(sock, m) })
	h.socketLost(sock)
	log.Info("plugin socket disconnected", "reason", err)
}

// pluginHandshake reads the hello and answers a reject when it is unusable
// (a plugin that offers only protocol 1 is told to run
// `studio-bridge install-plugin`: protocol.ValidateHello); then it pairs
// (protocol/pairing.go): the welcome carries the host's nonce and its proof
// over the plugin's nonce, and the plugin's pair frame must prove the
// pairing key before the socket carries anything. A plugin without the key
// (unpaired, or paired with another token) gets a reject UNAUTHORIZED
// saying to run install-plugin: it can attach no session (attack 7 of
// issue 22) and resume none (attack 11).
func (h *Host) pluginHandshake(c *websocket.Conn) (protocol.Hello, int, bool) {
	hello, ok := readHello[protocol.Hello](h, c)
	if !ok {
		return hello, 0, false
	}
	v, perr := protocol.ValidateHello(hello)
	if perr != nil {
		h.cfg.Log.Info("rejected plugin hello", "code", perr.Code, "reason", perr.Message)
		reject(c, perr.Code, perr.Message)
		return hello, 0, false
	}
	if h.pairKey == nil {
		h.cfg.Log.Warn("refused a plugin: this bridge host has no token, so no pairing key")
		reject(c, protocol.CodeUnauthorized, "this bridge host has no token and so cannot pair with any plugin; restart it with "+authtoken.EnvToken+" set, or with a config directory it can write")
		return hello, 0, false
	}
	nonce := h.newNonce()
	welcome := protocol.Welcome{
		ProtocolVersion:      v,
		HeartbeatIntervalMs:  int(h.cfg.Heartbeat / time.Millisecond),
		MaxFrameBytes:        protocol.PluginMaxFrameBytes,
		MaxSessionFrameBytes: protocol.MaxSessionFrameBytes,
		MaxSessions:          protocol.MaxSessionsPerSocket,
		MaxRequestBytes:      protocol.MaxRequestPayloadBytes,
		ResumeGraceMs:        int(h.resumeGrace() / time.Millisecond),
		HostVersion:          h.cfg.Version,
		Nonce:                nonce,
		Proof:                protocol.HostProof(h.pairKey, nonce, hello.Nonce, hello.InstanceID),
	}
	if err := writeFrame(c, welcome); err != nil {
		_ = c.CloseNow()
		return hello, 0, false
	}
	pair, ok := readHello[protocol.Pair](h, c)
	if !ok {
		return hello, 0, false
	}
	if want := protocol.PluginProof(h.pairKey, nonce, hello.Nonce, hello.InstanceID); !protocol.ProofMatches(want, pair.Proof) {
		msg := protocol.WrongKeyMessage
		if pair.Proof == "" {
			msg = protocol.UnpairedMessage
		}
		h.cfg.Log.Info("refused a plugin that did not prove the pairing key", "instance", hello.InstanceID, "proofPresented", pair.Proof != "")
		reject(c, protocol.CodeUnauthorized, msg)
		return hello, 0, false
	}
	return hello, v, true
}

// writeFrame writes one frame on a socket that has no peer yet (the
// handshake), within the write timeout.
func writeFrame(c *websocket.Conn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), protocol.WriteTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, data)
}

// readHello reads a peer's first frame, which must be a T, within the
// handshake timeout; anything else is rejected (and the socket closed). A
// peer that sends nothing in time is closed with 1008 and a reason; a first
// frame over PreHandshakeMaxFrameBytes with 1009.
func readHello[T protocol.Message](h *Host, c *websocket.Conn) (T, bool) {
	var zero T
	timeout := h.handshakeTimeout()
	wait, cancel := context.WithCancel(h.ctx)
	defer cancel()
	// The close runs beside the blocked read, as a peer's close does: a
	// read whose context ends would instead drop the socket (1006).
	closing := make(chan struct{})
	timer := time.AfterFunc(timeout, func() {
		defer close(closing)
		cancel() // a frame waiting for the handshake budget gives up
		_ = c.Close(websocket.StatusPolicyViolation, fmt.Sprintf("no %s within %s", zero.Type(), timeout))
	})
	typ, data, err := readFirstFrame(h.ctx, wait, c, h.handshakeBudget, h.budgets.firstFrameBody)
	if !timer.Stop() {
		<-closing // timed out: closed with 1008 by the timer
		_ = c.CloseNow()
		return zero, false
	}
	switch {
	case err != nil:
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
	rejectWith(c, code, msg, websocket.StatusPolicyViolation)
}

// rejectWith is reject closing with status.
func rejectWith(c *websocket.Conn, code protocol.Code, msg string, status websocket.StatusCode) {
	data, _ := protocol.Encode(protocol.Reject{Code: code, Message: msg})
	ctx, cancel := context.WithTimeout(context.Background(), protocol.WriteTimeout)
	defer cancel()
	if c.Write(ctx, websocket.MessageText, data) == nil {
		_ = c.Close(status, truncateReason(string(code)+": "+msg))
	}
	_ = c.CloseNow()
}

// announceLocked records a session change locally and tells every client,
// encoding the event once for all of them.
func (h *Host) announceLocked(kind string, s protocol.SessionInfo) {
	h.hub.apply(kind, s)
	if len(h.clients) == 0 || (h.leaving && kind == protocol.SessionDisconnected) {
		// A leaving host does not announce the disconnections its own
		// leaving causes: its clients keep those sessions as the ones they
		// expect back from the next host (Bridge.supervise).
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

// stateChange is the payload of a plugin "state" event; absent fields keep
// their values.
type stateChange struct {
	State     *protocol.State `json:"state"`
	PlaceName *string         `json:"placeName"`
	PlaceID   *int64          `json:"placeId"`
	GameID    *int64          `json:"gameId"`
}

// pluginEvent records a state change and relays an event to the session's
// local subscribers and watching clients.
func (h *Host) pluginEvent(sock *pluginSocket, s *pluginSession, ev protocol.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev.SessionID = s.id()
	if ev.Event == "state" {
		var sc stateChange
		if err := json.Unmarshal(ev.Payload, &sc); err != nil || (sc.State != nil && !sc.State.Valid()) ||
			(sc.PlaceName != nil && len(*sc.PlaceName) > protocol.MaxPlaceNameBytes) {
			sock.notice(s.id(), protocol.CodeInvalidPayload, fmt.Sprintf(
				"state event payload must be {state, placeName?, placeId?, gameId?} with a valid state and a placeName of at most %d bytes", protocol.MaxPlaceNameBytes), "state")
			return
		}
		if sc.State != nil {
			s.info.State = *sc.State
		}
		if sc.PlaceName != nil {
			s.info.PlaceName = *sc.PlaceName
		}
		if sc.PlaceID != nil {
			s.info.PlaceID = *sc.PlaceID
		}
		if sc.GameID != nil {
			s.info.GameID = *sc.GameID
		}
		if h.plugins[s.id()] == s {
			h.announceLocked(protocol.SessionUpdated, s.info)
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
