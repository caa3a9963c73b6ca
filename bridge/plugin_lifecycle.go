package bridge

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// resumeGrace is how long a v2 session whose socket dropped is held.
func (h *Host) resumeGrace() time.Duration {
	if h.cfg.ResumeGrace > 0 {
		return h.cfg.ResumeGrace
	}
	return protocol.ResumeGrace
}

// claimLocked applies the session id rules of PROTOCOL.md 12.5 to a hello
// (v1) or an attach (v2). It returns the id to use and, when the newcomer
// proved it owns a session the host has (same window and context, matching
// resume secret), that session. Without the secret a newcomer gets a fresh
// id and the existing session is left alone: naming an id is not enough to
// take it over.
func (h *Host) claimLocked(prev, secret, instanceID string, context protocol.Context) (string, *pluginSession) {
	if prev == "" || uuid.Validate(prev) != nil {
		return uuid.NewString(), nil
	}
	old := h.plugins[prev]
	switch {
	case old == nil:
		return prev, nil
	case old.info.InstanceID == instanceID && old.info.Context == context && protocol.SecretMatches(old.secret, secret):
		return prev, old
	}
	h.cfg.Log.Warn("a plugin named a session the host has without its resume secret; it gets a fresh session id and the existing session is untouched",
		"session", prev, "instance", instanceID, "context", context, "secretPresented", secret != "")
	return uuid.NewString(), nil
}

// tellReplacedLocked tells a socket, in-band, that another connection holding
// the session's secret now carries session id: Studio's WebStreamClient shows
// the plugin no close codes. A v1 connection is then closed with 4002.
func (h *Host) tellReplacedLocked(sock *pluginSocket, id string) {
	const reason = "taken over by a connection that holds the session's resume secret"
	if sock.version == 1 {
		_ = sock.send(protocol.Replaced{Reason: reason})
		sock.closeAfter(protocol.CloseReplaced, "replaced by a newer connection of the same session")
		return
	}
	_ = sock.send(protocol.Replaced{SessionID: id, Reason: reason})
}

// replaceLocked ends a session whose id a newcomer took over with the secret
// but cannot resume (either side speaks v1): the old connection is told, its
// requests fail, and the caller installs the new session under the same id
// (whose "connected" event replaces the record, so no "disconnected" here).
func (h *Host) replaceLocked(old *pluginSession) {
	if old.sock != nil {
		h.tellReplacedLocked(old.sock, old.id())
	}
	h.retireLocked(old)
	old.failAll(false)
}

// retireLocked marks s ended and unlinks it from every socket.
func (h *Host) retireLocked(s *pluginSession) {
	s.ended = true
	if s.grace != nil {
		s.grace.Stop()
		s.grace = nil
	}
	if s.sock != nil {
		delete(s.sock.sessions, s.id())
		s.sock = nil
	}
	for sock := range h.sockets {
		if sock.held[s.id()] == s {
			delete(sock.held, s.id())
		}
	}
}

// endLocked ends a session for good: clients are told it disconnected and
// its unanswered requests fail (UNKNOWN_OUTCOME for those the plugin may
// have received when lost is set, else SESSION_DISCONNECTED).
func (h *Host) endLocked(s *pluginSession, lost bool) {
	if s.ended {
		return
	}
	h.retireLocked(s)
	if h.plugins[s.id()] == s {
		delete(h.plugins, s.id())
		h.announceLocked(protocol.SessionDisconnected, s.info)
	}
	s.failAll(lost)
}

// attachLocked links s to sock.
func attachLocked(s *pluginSession, sock *pluginSocket) {
	s.sock = sock
	sock.sessions[s.id()] = s
	sock.held[s.id()] = s
	s.seen()
}

// holdLocked keeps a v2 session whose socket is gone for the resume grace,
// with its unanswered requests; a re-attach with its secret resumes it.
func (h *Host) holdLocked(s *pluginSession) {
	s.graceGen++
	gen := s.graceGen
	if s.grace != nil {
		s.grace.Stop()
	}
	s.grace = time.AfterFunc(h.resumeGrace(), func() { h.graceExpired(s, gen) })
	s.log.Info("plugin session lost its socket; holding it and its calls for the resume grace", "grace", h.resumeGrace())
}

func (h *Host) graceExpired(s *pluginSession, gen int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.ended || s.sock != nil || s.graceGen != gen {
		return // resumed, or ended another way, meanwhile
	}
	s.log.Info("plugin session did not come back within the resume grace", "grace", h.resumeGrace())
	h.endLocked(s, true)
}

// endHeldLocked ends every session held in its grace: the host is stopping.
func (h *Host) endHeldLocked() {
	for _, s := range h.plugins {
		if s.sock == nil {
			h.endLocked(s, true)
		}
	}
}

// socketLost handles the end of a plugin socket. v2 sessions it carried are
// held for the grace, unless the plugin said goodbye or the host itself is
// going away; v1 sessions end at once (v1 plugins neither acknowledge nor
// deduplicate requests, so they cannot be re-sent safely).
func (h *Host) socketLost(sock *pluginSocket) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sockets, sock)
	h.forgetUnattachedLocked(sock)
	hostGoing := h.ctx.Err() != nil || h.draining.Load()
	for _, s := range sock.sessions {
		if s.sock != sock {
			continue
		}
		if !s.v2 || sock.goodbye || hostGoing {
			h.endLocked(s, s.v2)
			continue
		}
		delete(sock.sessions, s.id())
		s.sock = nil
		h.holdLocked(s)
	}
	clear(sock.held)
}

// registerV1 picks a v1 session's id, sends the welcome and makes the
// session visible.
func (h *Host) registerV1(sock *pluginSocket, hello protocol.Hello) (*pluginSession, *protocol.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, old := h.claimLocked(hello.PreviousSessionID, hello.ResumeSecret, hello.InstanceID, hello.Context)
	if old == nil {
		if perr := h.roomLocked(hello.InstanceID); perr != nil {
			return nil, perr
		}
	}
	secret := protocol.NewResumeSecret()
	if old != nil {
		secret = old.secret
		h.replaceLocked(old)
	}
	info := protocol.SessionInfo{
		SessionID:     id,
		InstanceID:    hello.InstanceID,
		Context:       hello.Context,
		PlaceName:     hello.PlaceName,
		PlaceID:       hello.PlaceID,
		GameID:        hello.GameID,
		State:         hello.State,
		PluginVersion: hello.PluginVersion,
		Capabilities:  append([]string{}, hello.Capabilities...), // never null on the wire
		ConnectedAt:   time.Now().UTC(),
	}
	if info.State == "" {
		info.State = protocol.StateEdit
	}
	s := newSession(h, false, info, secret)
	attachLocked(s, sock)
	h.plugins[id] = s
	h.announceLocked(protocol.SessionConnected, info) // listed before the plugin hears it is welcome
	_ = sock.send(protocol.Welcome{
		ProtocolVersion:     1,
		SessionID:           id,
		HeartbeatIntervalMs: int(h.cfg.Heartbeat / time.Millisecond),
		MaxFrameBytes:       protocol.PluginMaxFrameBytes,
		HostVersion:         h.cfg.Version,
		ResumeSecret:        secret,
	})
	return s, nil
}

// roomLocked refuses one more session (not one taken over) past
// MaxSessions in all or MaxSessionsPerInstance for its Studio window: every
// client-welcome lists them all and must stay within ClientMaxFrameBytes.
func (h *Host) roomLocked(instanceID string) *protocol.Error {
	if len(h.plugins) >= protocol.MaxSessions {
		return protocol.Errorf(protocol.CodeTooManySessions,
			"the bridge host already has %d sessions, the most it holds; close some Studio windows", protocol.MaxSessions)
	}
	n := 0
	for _, s := range h.plugins {
		if s.info.InstanceID == instanceID {
			n++
		}
	}
	if n >= protocol.MaxSessionsPerInstance {
		return protocol.Errorf(protocol.CodeTooManySessions,
			"Studio window %q already has %d sessions, the most one window may have", instanceID, protocol.MaxSessionsPerInstance)
	}
	return nil
}

// attach answers a v2 attach: a new session, a resumed one (held in its
// grace) or one moved from another socket (a refresh or a takeover), or a
// per-session reject. The socket stays open either way.
func (h *Host) attach(sock *pluginSocket, a protocol.Attach) {
	if perr := protocol.ValidateAttach(a, sock.instanceID); perr != nil {
		sock.log.Info("rejected a session attach", "code", perr.Code, "reason", perr.Message)
		_ = sock.send(protocol.Reject{Ref: a.Ref, Code: perr.Code, Message: perr.Message})
		return
	}
	h.mu.Lock()
	id, old := h.claimLocked(a.PreviousSessionID, a.ResumeSecret, a.InstanceID, a.Context)
	if (old == nil || old.sock != sock) && len(sock.sessions) >= protocol.MaxSessionsPerSocket {
		h.mu.Unlock()
		_ = sock.send(protocol.Reject{Ref: a.Ref, Code: protocol.CodeTooManySessions,
			Message: "this connection already carries the most sessions a Studio window may have; detach one first"})
		return
	}
	if old == nil {
		if perr := h.roomLocked(a.InstanceID); perr != nil {
			h.mu.Unlock()
			sock.log.Info("rejected a session attach", "code", perr.Code, "reason", perr.Message)
			_ = sock.send(protocol.Reject{Ref: a.Ref, Code: perr.Code, Message: perr.Message})
			return
		}
	}
	if old != nil && old.v2 {
		awaiting, resend, cancels := h.moveLocked(old, sock, a)
		h.attachedLocked(sock)
		_ = sock.send(protocol.Attached{Ref: a.Ref, SessionID: id, ResumeSecret: old.secret, Resumed: true, Awaiting: awaiting})
		old.log.Info("plugin session resumed", "awaiting", len(awaiting), "resending", len(resend))
		h.mu.Unlock()
		if len(resend)+len(cancels) > 0 && h.track(&h.conns) {
			go func() {
				defer h.conns.Done()
				old.resend(sock, resend, cancels)
			}()
		}
		return
	}
	if old != nil {
		h.replaceLocked(old) // a v1 session taken over, with its secret, by a v2 plugin
	}
	info := protocol.SessionInfo{
		SessionID:     id,
		InstanceID:    a.InstanceID,
		Context:       a.Context,
		PluginVersion: sock.pluginVersion,
		State:         protocol.StateEdit,
		ConnectedAt:   time.Now().UTC(),
	}
	applyAttach(&info, a)
	s := newSession(h, true, info, protocol.NewResumeSecret())
	attachLocked(s, sock)
	h.attachedLocked(sock)
	h.plugins[id] = s
	h.announceLocked(protocol.SessionConnected, info) // listed before the plugin hears it is attached
	_ = sock.send(protocol.Attached{Ref: a.Ref, SessionID: id, ResumeSecret: s.secret})
	h.mu.Unlock()
	s.log.Info("plugin session attached", "place", info.PlaceName)
}

// moveLocked resumes a held session on sock, or moves a live one to it (the
// socket that had it is told in-band). It returns what the resume owes the
// plugin: the acknowledged requests still awaited, the ones to send again,
// and the cancels to deliver.
func (h *Host) moveLocked(s *pluginSession, sock *pluginSocket, a protocol.Attach) (awaiting, resend, cancels []string) {
	if prev := s.sock; prev != nil && prev != sock {
		h.tellReplacedLocked(prev, s.id())
		delete(prev.sessions, s.id())
	}
	if s.grace != nil {
		s.grace.Stop()
		s.grace = nil
	}
	s.graceGen++
	attachLocked(s, sock)
	oldInfo := s.info
	applyAttach(&s.info, a)
	if !sameInfo(oldInfo, s.info) {
		h.announceLocked(protocol.SessionUpdated, s.info)
	}
	return s.resumeWork()
}

// applyAttach copies the record fields an attach sets.
func applyAttach(info *protocol.SessionInfo, a protocol.Attach) {
	if a.State != "" {
		info.State = a.State
	}
	if a.PlaceName != "" {
		info.PlaceName = a.PlaceName
	}
	if a.PlaceID != 0 {
		info.PlaceID = a.PlaceID
	}
	if a.GameID != 0 {
		info.GameID = a.GameID
	}
	if a.Capabilities != nil {
		info.Capabilities = slices.Clone(a.Capabilities)
	}
	if a.PluginVersion != "" {
		info.PluginVersion = a.PluginVersion
	}
}

func sameInfo(a, b protocol.SessionInfo) bool {
	return a.State == b.State && a.PlaceName == b.PlaceName && a.PlaceID == b.PlaceID &&
		a.GameID == b.GameID && a.PluginVersion == b.PluginVersion && slices.Equal(a.Capabilities, b.Capabilities)
}

// sessionHeartbeats pings every session a v2 socket carries and holds the
// ones that fall silent while the socket itself lives (a frozen server
// DataModel behind a healthy edit DataModel): PROTOCOL.md 12.8.
func (h *Host) sessionHeartbeats(sock *pluginSocket) {
	t := time.NewTicker(h.cfg.Heartbeat)
	defer t.Stop()
	limit := protocol.MissedHeartbeats * h.cfg.Heartbeat
	for {
		select {
		case <-sock.done():
			return
		case <-h.ctx.Done():
			return
		case now := <-t.C:
			h.mu.Lock()
			for id, s := range sock.sessions {
				if silent := now.Sub(time.Unix(0, s.lastSeen.Load())); silent > limit {
					s.log.Info("plugin session silent while its socket lives", "silent", silent.Round(time.Millisecond))
					_ = sock.send(protocol.Goodbye{SessionID: id, Reason: "heartbeat timeout"})
					delete(sock.sessions, id)
					s.sock = nil
					h.holdLocked(s)
					continue
				}
				_ = sock.send(protocol.Ping{SessionID: id, T: now.UnixMilli()})
			}
			h.mu.Unlock()
		}
	}
}
