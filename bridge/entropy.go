package bridge

import (
	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// entropy draws the values the host makes up at random: the nonce of each
// plugin welcome, new session ids and resume secrets. The recorded
// conversations (transcript_test.go) inject fixed sequences so that a
// replay is deterministic; a nil field uses the random source.
type entropy struct {
	nonce        func() string
	sessionID    func() string
	resumeSecret func() string
}

func (h *Host) newNonce() string {
	if f := h.cfg.entropy.nonce; f != nil {
		return f()
	}
	return protocol.NewNonce()
}

func (h *Host) newSessionID() string {
	if f := h.cfg.entropy.sessionID; f != nil {
		return f()
	}
	return uuid.NewString()
}

func (h *Host) newResumeSecret() string {
	if f := h.cfg.entropy.resumeSecret; f != nil {
		return f()
	}
	return protocol.NewResumeSecret()
}
