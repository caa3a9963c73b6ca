package bridge

import (
	"fmt"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// handleFrame serves one frame of a plugin socket after its handshake
// (PROTOCOL.md 12.6).
func (h *Host) handleFrame(sock *pluginSocket, m protocol.Message) {
	switch m := m.(type) {
	case protocol.Attach:
		h.attach(sock, m)
	case protocol.Detach:
		if s := h.sessionOn(sock, m.SessionID, false); s != nil {
			s.log.Info("plugin session detached", "reason", m.Reason)
			h.mu.Lock()
			h.endLocked(s, false)
			h.mu.Unlock()
		} else {
			sock.unknownSession(m.SessionID, m.Type())
		}
	case protocol.Ack:
		// Duplicates are normal (the plugin acknowledges re-sent requests
		// again), and an ack for a finished request needs no answer.
		if s := h.sessionOn(sock, m.SessionID, true); s != nil {
			s.ack(m.ID)
		}
	case protocol.Response:
		h.sessionRequestFrame(sock, m.SessionID, m)
	case protocol.Progress:
		h.sessionRequestFrame(sock, m.SessionID, m)
	case protocol.Chunk:
		h.sessionRequestFrame(sock, m.SessionID, m)
	case protocol.Event:
		// A log event written on the old socket just before a move is
		// kept; a state event there is not (the attach carried the state,
		// and a late one would undo a newer one).
		if s := h.sessionOn(sock, m.SessionID, m.Event != "state"); s != nil {
			h.pluginEvent(sock, s, m)
		} else {
			sock.unknownSession(m.SessionID, m.Type())
		}
	case protocol.Ping: // only session pings reach here; the peer answers socket ones
		if s := h.sessionOn(sock, m.SessionID, false); s != nil {
			_ = sock.send(protocol.Pong{SessionID: m.SessionID, T: m.T})
		} else {
			sock.unknownSession(m.SessionID, m.Type())
		}
	case protocol.Pong:
		h.sessionOn(sock, m.SessionID, false) // marks the session alive
	case protocol.Goodbye:
		sock.log.Info("plugin closing its socket", "reason", m.Reason)
		h.mu.Lock()
		sock.goodbye = true
		for _, s := range sock.sessions {
			h.endLocked(s, false)
		}
		h.mu.Unlock()
	case protocol.ErrorNotice:
		sock.log.Debug("plugin reported a protocol error", "code", m.Code, "message", m.Message, "ref", m.Ref, "session", m.SessionID)
	default:
		sock.notice("", protocol.CodeUnknownMessage, fmt.Sprintf("a plugin may not send %q after the handshake", m.Type()), m.Type())
	}
}

// sessionOn finds the session a frame names: attached to sock, or, when
// answers is set (acks, the frames answering a request, log events), held
// by sock earlier, so a frame written just before a move or a session
// heartbeat timeout is not lost. A frame from the session's current socket marks it
// alive.
func (h *Host) sessionOn(sock *pluginSocket, id string, answers bool) *pluginSession {
	if id == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := sock.sessions[id]; s != nil {
		s.seen()
		return s
	}
	if s := sock.held[id]; answers && s != nil && !s.ended {
		return s
	}
	return nil
}

// sessionRequestFrame routes a frame answering a request to the session it
// names, or tells the plugin that session is not on this socket.
func (h *Host) sessionRequestFrame(sock *pluginSocket, sid string, m protocol.Message) {
	if s := h.sessionOn(sock, sid, true); s != nil {
		h.requestFrame(sock, s, m)
		return
	}
	sock.unknownSession(sid, m.Type())
}

// requestFrame handles a plugin's response, progress or chunk for one of the
// session's requests.
func (h *Host) requestFrame(sock *pluginSocket, s *pluginSession, m protocol.Message) {
	sid := s.id()
	switch m := m.(type) {
	case protocol.Response:
		p := s.take(m.ID)
		if p == nil {
			sock.notice(sid, protocol.CodeUnknownRequest, "response for unknown or finished request", m.ID)
			return
		}
		p.done <- finishResponse(p, m)
	case protocol.Progress:
		p := s.lookup(m.ID)
		if p == nil {
			sock.notice(sid, protocol.CodeUnknownRequest, "progress for unknown or finished request", m.ID)
			return
		}
		if p.progress != nil {
			p.progress(m.Payload)
		}
	case protocol.Chunk:
		p := s.lookup(m.ID)
		if p == nil {
			sock.notice(sid, protocol.CodeUnknownRequest, "chunk for unknown or finished request", m.ID)
			return
		}
		asm := s.chunksFor(m.ID, p)
		if asm == nil {
			return // finished meanwhile
		}
		if err := asm.Add(m); err != nil {
			if s.take(m.ID) != nil {
				p.done <- callResult{err: err}
				_ = sock.send(protocol.Cancel{SessionID: sid, ID: m.ID})
			}
		}
	}
}

// notice reports a bad frame to the plugin without ending the connection.
func (sock *pluginSocket) notice(sessionID string, code protocol.Code, msg, ref string) {
	sock.log.Debug("protocol error from plugin", "code", code, "message", msg, "session", sessionID)
	_ = sock.send(protocol.ErrorNotice{SessionID: sessionID, Code: code, Message: msg, Ref: ref})
}

func (sock *pluginSocket) unknownSession(id, typ string) {
	if id == "" {
		sock.notice("", protocol.CodeMalformedFrame, fmt.Sprintf("a %s frame needs \"sessionId\"", typ), typ)
		return
	}
	sock.notice(id, protocol.CodeSessionNotFound, fmt.Sprintf("%s for a session this connection does not carry", typ), id)
}
