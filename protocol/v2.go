package protocol

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"time"
)

// The plugin protocol (PROTOCOL.md section 12), version 2: one socket per
// Studio window carrying one session per DataModel. The plugin endpoint is
// versioned apart from the client endpoint (Version, SupportedVersions).
// Version 1, one socket per DataModel, was never released; a plugin that
// offers only it is rejected (ValidateHello).
const (
	// PluginProtocolVersion is the plugin protocol version.
	PluginProtocolVersion = 2
	// MaxSessionsPerSocket bounds the sessions one socket carries.
	MaxSessionsPerSocket = 16
	// RelayEnvelopeBytes is reserved in every session frame for the
	// envelope the edit DataModel's relay wraps it in.
	RelayEnvelopeBytes = 64 << 10
	// MaxSessionFrameBytes bounds a session-scoped frame, both directions.
	MaxSessionFrameBytes = PluginMaxFrameBytes - RelayEnvelopeBytes
	// MaxRequestPayloadBytes bounds a chunked request payload (host to
	// plugin): a 4 MB script with room for its JSON escaping.
	MaxRequestPayloadBytes = 16 << 20
	// ResumeGrace is how long the host holds a session whose socket
	// dropped, with its in-flight calls, waiting for the plugin to return.
	ResumeGrace = 10 * time.Second
	// MaxResumeSecretBytes bounds a resumeSecret a peer may send.
	MaxResumeSecretBytes = 128
	// MaxAttachRefBytes bounds an attach's ref.
	MaxAttachRefBytes = 64
)

// PluginSupportedVersions lists the plugin protocol versions the host
// accepts on /plugin, newest first.
var PluginSupportedVersions = []int{PluginProtocolVersion}

// NegotiatePlugin picks the plugin protocol version both sides speak.
func NegotiatePlugin(offered []int) (int, bool) {
	return newestCommon(PluginSupportedVersions, offered)
}

// Message type names of the plugin's session frames.
const (
	TypeAttach   = "attach"
	TypeAttached = "attached"
	TypeDetach   = "detach"
	TypeAck      = "ack"
	TypeReplaced = "replaced"
)

// Codes of a per-session reject.
const (
	// CodeInvalidAttach: an attach had a missing, malformed or oversized
	// field, or named another window than its socket's hello.
	CodeInvalidAttach Code = "INVALID_ATTACH"
	// CodeTooManySessions: the socket already carries MaxSessionsPerSocket.
	CodeTooManySessions Code = "TOO_MANY_SESSIONS"
)

// Attach registers one DataModel as a session on the window's socket.
type Attach struct {
	Ref               string   `json:"ref"`
	InstanceID        string   `json:"instanceId"`
	Context           Context  `json:"context"`
	PlaceName         string   `json:"placeName,omitempty"`
	PlaceID           int64    `json:"placeId,omitempty"`
	GameID            int64    `json:"gameId,omitempty"`
	State             State    `json:"state,omitempty"`
	Capabilities      []string `json:"capabilities,omitempty"`
	PluginVersion     string   `json:"pluginVersion,omitempty"`
	PreviousSessionID string   `json:"previousSessionId,omitempty"`
	ResumeSecret      string   `json:"resumeSecret,omitempty"`
}

// Attached answers an Attach: the session's id and secret. Resumed says the
// host still had the session; Awaiting lists the acknowledged requests it
// still waits for (only when Resumed).
type Attached struct {
	Ref          string   `json:"ref"`
	SessionID    string   `json:"sessionId"`
	ResumeSecret string   `json:"resumeSecret"`
	Resumed      bool     `json:"resumed"`
	Awaiting     []string `json:"awaiting,omitempty"`
}

// Detach ends a session on purpose (the DataModel is going away).
type Detach struct {
	SessionID string `json:"sessionId"`
	Reason    string `json:"reason,omitempty"`
}

// Ack tells the host a request reached the plugin and is recorded in its
// dedupe table.
type Ack struct {
	SessionID string `json:"sessionId"`
	ID        string `json:"id"`
}

// Replaced tells a connection that another one, holding the session's
// resume secret, now carries the session.
type Replaced struct {
	SessionID string `json:"sessionId"`
	Reason    string `json:"reason"`
}

func (Attach) Type() string   { return TypeAttach }
func (Attached) Type() string { return TypeAttached }
func (Detach) Type() string   { return TypeDetach }
func (Ack) Type() string      { return TypeAck }
func (Replaced) Type() string { return TypeReplaced }

// NewResumeSecret returns a fresh resume secret: 32 random bytes, URL-safe
// base64 without padding (43 characters).
func NewResumeSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// SecretMatches compares a presented secret with the session's in constant
// time. An empty secret never matches.
func SecretMatches(have, presented string) bool {
	if have == "" || presented == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(have), []byte(presented)) == 1
}

// ValidateAttach checks an attach against its socket's hello instanceId and
// returns a *Error (CodeInvalidAttach) fit for a per-session Reject.
func ValidateAttach(a Attach, instanceID string) *Error {
	switch {
	case a.InstanceID != instanceID:
		return Errorf(CodeInvalidAttach, "attach names instanceId %q but this socket's hello named %q; one socket carries one Studio window", clip(a.InstanceID), clip(instanceID))
	case a.Context != ContextEdit && a.Context != ContextServer && a.Context != ContextClient:
		return Errorf(CodeInvalidAttach, "attach has context %q; want edit, server or client", clip(string(a.Context)))
	case a.State != "" && !a.State.Valid():
		return Errorf(CodeInvalidAttach, "attach has state %q; want Edit, Play, Run, Paused, Server or Client", clip(string(a.State)))
	case len(a.PlaceName) > MaxPlaceNameBytes || len(a.PluginVersion) > MaxPluginVersionBytes || !validCapabilities(a.Capabilities):
		return Errorf(CodeInvalidAttach, "attach fields are too long (placeName at most %d bytes, pluginVersion %d, at most %d capabilities of %d bytes)",
			MaxPlaceNameBytes, MaxPluginVersionBytes, MaxCapabilities, MaxCapabilityBytes)
	case len(a.ResumeSecret) > MaxResumeSecretBytes:
		return Errorf(CodeInvalidAttach, "attach resumeSecret is longer than %d bytes", MaxResumeSecretBytes)
	}
	return nil
}
