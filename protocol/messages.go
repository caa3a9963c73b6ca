package protocol

import "encoding/json"

// Message is any protocol message. Type returns the value of its "type" field.
type Message interface {
	Type() string
}

// Message type names, as they appear in the "type" field.
const (
	TypeHello         = "hello"
	TypeWelcome       = "welcome"
	TypeReject        = "reject"
	TypeRequest       = "request"
	TypeResponse      = "response"
	TypeProgress      = "progress"
	TypeChunk         = "chunk"
	TypeCancel        = "cancel"
	TypeEvent         = "event"
	TypePing          = "ping"
	TypePong          = "pong"
	TypeError         = "error"
	TypeGoodbye       = "goodbye"
	TypeClientHello   = "client-hello"
	TypeClientWelcome = "client-welcome"
	TypeSessionEvent  = "session-event"
	TypeWatch         = "watch"
	TypeUnwatch       = "unwatch"
	TypeHostTransfer  = "host-transfer"
)

// Hello is the plugin's first frame on /plugin: it opens the socket of one
// Studio window. The window's DataModels then attach one by one (Attach).
// Fields a plugin of an older build sent beside these are ignored.
type Hello struct {
	ProtocolVersions []int  `json:"protocolVersions"`
	PluginVersion    string `json:"pluginVersion"`
	InstanceID       string `json:"instanceId"`
	// Nonce is the plugin's challenge to the host (pairing.go).
	Nonce string `json:"nonce,omitempty"`
}

// Welcome accepts a plugin's hello (or, as ClientWelcome, a client's) and
// carries the limits of the socket and of its sessions (PROTOCOL.md 12.3).
type Welcome struct {
	ProtocolVersion      int    `json:"protocolVersion"`
	HeartbeatIntervalMs  int    `json:"heartbeatIntervalMs"`
	MaxFrameBytes        int    `json:"maxFrameBytes"`
	MaxSessionFrameBytes int    `json:"maxSessionFrameBytes,omitempty"`
	MaxSessions          int    `json:"maxSessions,omitempty"`
	MaxRequestBytes      int    `json:"maxRequestBytes,omitempty"`
	ResumeGraceMs        int    `json:"resumeGraceMs,omitempty"`
	HostVersion          string `json:"hostVersion"`
	// Nonce is the host's challenge to the plugin and Proof the host's
	// answer to the plugin's (pairing.go); both empty in a client-welcome.
	Nonce string `json:"nonce,omitempty"`
	Proof string `json:"proof,omitempty"`
}

// Reject refuses a hello; the sender closes the socket right after it. With
// Ref set it refuses one attach and the socket stays open.
type Reject struct {
	Ref     string `json:"ref,omitempty"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Request asks the receiver to perform an action. On /plugin the host sends
// it to the plugin; on /client a client sends it to the host, naming the
// target SessionID (empty for host-level actions) and a TimeoutMs.
type Request struct {
	ID        string          `json:"id"`
	Action    string          `json:"action"`
	SessionID string          `json:"sessionId,omitempty"`
	TimeoutMs int64           `json:"timeoutMs,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	// Chunks > 0 (host to plugin): the payload was sent as that many
	// Chunk frames just before this request (PROTOCOL.md 12.11).
	Chunks int `json:"chunks,omitempty"`
}

// Response ends a request. When OK is false, Error says why. When Chunks is
// above zero, Payload is absent and is the concatenation, in Seq order, of the
// Data of that many Chunk messages sent before this response.
type Response struct {
	SessionID string          `json:"sessionId,omitempty"`
	ID        string          `json:"id"`
	OK        bool            `json:"ok"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	Error     *Error          `json:"error,omitempty"`
	Chunks    int             `json:"chunks,omitempty"`
}

// Progress carries one streamed piece of a request's result before the
// response (an exec output line, a capture step).
type Progress struct {
	SessionID string          `json:"sessionId,omitempty"`
	ID        string          `json:"id"`
	Payload   json.RawMessage `json:"payload"`
}

// Chunk carries one piece of a large response payload (or, to a plugin, of a
// large request payload from the host).
type Chunk struct {
	SessionID string `json:"sessionId,omitempty"`
	ID        string `json:"id"`
	Seq       int    `json:"seq"`
	Data      string `json:"data"`
}

// Cancel asks the receiver to abandon a request (best effort).
type Cancel struct {
	SessionID string `json:"sessionId,omitempty"`
	ID        string `json:"id"`
}

// Event is an unsolicited notification from a plugin (log lines, state
// changes). The host stamps SessionID before relaying it to clients.
type Event struct {
	Event     string          `json:"event"`
	SessionID string          `json:"sessionId,omitempty"`
	Seq       int64           `json:"seq,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// Ping is a heartbeat; the receiver answers with Pong. With SessionID (on /plugin)
// it checks one session rather than the socket.
type Ping struct {
	SessionID string `json:"sessionId,omitempty"`
	T         int64  `json:"t,omitempty"`
}

// Pong answers a Ping, echoing T and SessionID.
type Pong struct {
	SessionID string `json:"sessionId,omitempty"`
	T         int64  `json:"t,omitempty"`
}

// ErrorNotice reports a bad frame to its sender without ending the
// connection. Ref names the offending request id or message type, if known.
type ErrorNotice struct {
	SessionID string `json:"sessionId,omitempty"`
	Code      Code   `json:"code"`
	Message   string `json:"message"`
	Ref       string `json:"ref,omitempty"`
}

// Goodbye tells a peer the sender is closing on purpose, and why. With
// SessionID (v2, host to plugin) it ends that one session instead.
type Goodbye struct {
	SessionID string `json:"sessionId,omitempty"`
	Reason    string `json:"reason"`
}

// ClientHello is a studio-bridge client's first frame on /client.
//
// Nonce (client protocol 3) opens the mutual proof of the user's token
// (ClientChallenge, ClientProof): no secret crosses the wire. Token is what
// clients of protocol 2 sent, the raw token; this build never sends it and
// its host refuses protocol 2, but decodes it so as to say why (and never
// logs it).
type ClientHello struct {
	ProtocolVersions []int  `json:"protocolVersions"`
	ClientVersion    string `json:"clientVersion"`
	PID              int    `json:"pid,omitempty"`
	Nonce            string `json:"nonce,omitempty"`
	Token            string `json:"token,omitempty"`
	// Returning lists the sessions this client's previous host had when the
	// client lost it (a rejoin after a failover; at most MaxReturning ids).
	// A host younger than its grace expects them back: see
	// ClientWelcome.Awaiting.
	Returning []string `json:"returning,omitempty"`
}

// ClientWelcome accepts a client and hands it the current session list.
type ClientWelcome struct {
	ProtocolVersion     int           `json:"protocolVersion"`
	ClientID            string        `json:"clientId"`
	HostVersion         string        `json:"hostVersion"`
	HostStartedAt       int64         `json:"hostStartedAt"`
	HeartbeatIntervalMs int           `json:"heartbeatIntervalMs"`
	Sessions            []SessionInfo `json:"sessions"`
	// Awaiting, from a host that replaced a lost one, lists the lost host's
	// sessions that have not re-registered yet: the client's list is
	// complete once each is in it. Settled says every one of them is back,
	// so Sessions is complete now. With neither, a client waits out the
	// resolution grace from HostStartedAt.
	Awaiting []string `json:"awaiting,omitempty"`
	Settled  bool     `json:"settled,omitempty"`
}

// Session event kinds.
const (
	SessionConnected    = "connected"
	SessionDisconnected = "disconnected"
	SessionUpdated      = "updated"
)

// SessionEvent tells clients a session came, went or changed.
type SessionEvent struct {
	Kind    string      `json:"kind"`
	Session SessionInfo `json:"session"`
}

// Watch asks the host to relay a session's plugin events to this client.
type Watch struct {
	SessionID string `json:"sessionId"`
}

// Unwatch stops a Watch.
type Unwatch struct {
	SessionID string `json:"sessionId"`
}

// HostTransfer tells clients the host is leaving on purpose: one of them
// should take the port over.
type HostTransfer struct {
	Reason string `json:"reason"`
}

func (Hello) Type() string         { return TypeHello }
func (Welcome) Type() string       { return TypeWelcome }
func (Reject) Type() string        { return TypeReject }
func (Request) Type() string       { return TypeRequest }
func (Response) Type() string      { return TypeResponse }
func (Progress) Type() string      { return TypeProgress }
func (Chunk) Type() string         { return TypeChunk }
func (Cancel) Type() string        { return TypeCancel }
func (Event) Type() string         { return TypeEvent }
func (Ping) Type() string          { return TypePing }
func (Pong) Type() string          { return TypePong }
func (ErrorNotice) Type() string   { return TypeError }
func (Goodbye) Type() string       { return TypeGoodbye }
func (ClientHello) Type() string   { return TypeClientHello }
func (ClientWelcome) Type() string { return TypeClientWelcome }
func (SessionEvent) Type() string  { return TypeSessionEvent }
func (Watch) Type() string         { return TypeWatch }
func (Unwatch) Type() string       { return TypeUnwatch }
func (HostTransfer) Type() string  { return TypeHostTransfer }
