package bridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Conn is a process's view of the bridge network. The value Connect returns
// satisfies it whether this process hosts the bridge or joined one, and
// keeps satisfying it across failovers.
type Conn interface {
	// Sessions lists the connected plugin sessions, ordered by instance and
	// context.
	Sessions(ctx context.Context) ([]protocol.SessionInfo, error)
	// WatchSessions streams session connect, disconnect and update events
	// until ctx ends. A subscriber that falls behind loses the oldest events
	// rather than stalling the bridge; it can re-read Sessions.
	WatchSessions(ctx context.Context) <-chan SessionEvent
	// Resolve picks the session for a command (see Resolve), waiting briefly
	// for plugins that are still finding a freshly started host.
	Resolve(ctx context.Context, t Target) (protocol.SessionInfo, error)
	// Call runs action on a session and returns its payload. Errors are
	// *protocol.Error values whose codes survive process boundaries;
	// UNKNOWN_OUTCOME means the host was lost while the call was in flight.
	Call(ctx context.Context, sessionID, action string, payload json.RawMessage, opts CallOptions) (json.RawMessage, error)
	// Events streams a session's plugin events (log lines, state changes)
	// until ctx ends.
	Events(ctx context.Context, sessionID string) <-chan protocol.Event
	// Role reports the part this process plays right now. It is for
	// diagnostics (serve's banner); behaviour never depends on it.
	Role() Role
	// Close leaves the network. A host hands the port to its clients first.
	Close() error
}

// CallOptions tunes one Call.
type CallOptions struct {
	// Timeout bounds the call at the host; zero means DefaultCallTimeout.
	Timeout time.Duration
	// OnProgress receives each streamed progress payload, in order, on one
	// goroutine. It must not block for long.
	OnProgress func(json.RawMessage)
}

// DefaultCallTimeout bounds calls that set no timeout.
const DefaultCallTimeout = 30 * time.Second

// SessionEvent reports a session coming, going or changing.
type SessionEvent struct {
	Kind    string // protocol.SessionConnected, SessionDisconnected or SessionUpdated
	Session protocol.SessionInfo
}

// Role is which part a process currently plays on the bridge network.
type Role string

// Roles a process can have.
const (
	RoleHost   Role = "host"
	RoleClient Role = "client"
	RoleNone   Role = "connecting"
)
