package bridge

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// resumeGrace is how long a session whose socket dropped is held.
func (h *Host) resumeGrace() time.Duration {
	if h.cfg.ResumeGrace > 0 {
		return h.cfg.ResumeGrace
	}
	return protocol.ResumeGrace
}

// claimLocked applies the session id rules of PROTOCOL.md 12.5 to an
// attach. It returns the id to use and, when the newcomer
// proved it owns a session the host has (same window and context, matching
// resume secret), that session. Without the secret a newcomer gets a fresh
// id and the existing session is left alone: naming an id is not enough to
// take it over.
func (h *Host) claimLocked(prev, secret, instanceID string, context protocol.Context) (string, *pluginSession) {
	if prev == "" || uuid.Validate(prev) != nil {
		return h.newSessionID(), nil
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
	return h.newSessionID(), nil
}

// tellReplacedLocked tells a socket, in-band, that another connection holding
// the session's secret now carries session id: Studio's WebStreamClient shows
// the plugin no close codes.
func (h *Host) tellReplacedLocked(sock *pluginSocket, id string) {
	_ = sock.send(protocol.Replaced{SessionID: id, Reason: "taken over by a connection that holds the session's resume secret"})
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

// holdLocked keeps a session whose socket is gone for the resume grace,
// with its unanswered requests; a re-attach with its secret resumes it.
func (h *Host) holdLocked(s *pluginSession) {
	// How long the session had been silent when its socket went: at least
	// two missed heartbeats means it froze (a script that never yields),
	// not that its network went (pings were answered until then).
	s.silentAtLoss = time.Since(time.Unix(0, s.lastSeen.Load()))
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

// socketLost handles the end of a plugin socket. The sessions it carried are
// held for the grace, unless the plugin said goodbye or the host itself is
// going away.
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
		if sock.goodbye || hostGoing {
			h.endLocked(s, true)
			continue
		}
		delete(sock.sessions, s.id())
		s.sock = nil
		h.holdLocked(s)
	}
	clear(sock.held)
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

// attach answers an attach: a new session, a resumed one (held in its
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
	if old != nil {
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
	info := protocol.SessionInfo{
		SessionID:     id,
		InstanceID:    a.InstanceID,
		Context:       a.Context,
		PluginVersion: sock.pluginVersion,
		State:         protocol.StateEdit,
		Capabilities:  []string{}, // never null on the wire
		ConnectedAt:   time.Now().UTC(),
	}
	applyAttach(&info, a)
	s := newSession(h, info, h.newResumeSecret())
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

// sessionHeartbeats pings every session a socket carries and holds the
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
