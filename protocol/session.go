package protocol

import (
	"fmt"
	"time"
)

// Context names the DataModel a session lives in.
type Context string

// The three DataModel contexts of a Studio window.
const (
	ContextEdit   Context = "edit"
	ContextServer Context = "server"
	ContextClient Context = "client"
)

// Contexts lists every valid context, in display order.
var Contexts = []Context{ContextEdit, ContextServer, ContextClient}

// ParseContext validates a user- or peer-supplied context; "" stays "".
func ParseContext(s string) (Context, error) {
	switch c := Context(s); c {
	case "", ContextEdit, ContextServer, ContextClient:
		return c, nil
	}
	return "", fmt.Errorf("unknown context %q: use edit, server or client", s)
}

// State is a session's run mode as Studio reports it.
type State string

// Run modes a plugin may report.
const (
	StateEdit   State = "Edit"
	StatePlay   State = "Play"
	StateRun    State = "Run"
	StatePaused State = "Paused"
	StateServer State = "Server"
	StateClient State = "Client"
)

// Valid reports whether s is a state the protocol defines.
func (s State) Valid() bool {
	switch s {
	case StateEdit, StatePlay, StateRun, StatePaused, StateServer, StateClient:
		return true
	}
	return false
}

// SessionInfo describes one plugin session: one DataModel of one Studio
// window. The host assigns SessionID; everything else comes from the plugin's
// hello and later state events.
type SessionInfo struct {
	SessionID     string    `json:"sessionId"`
	InstanceID    string    `json:"instanceId"`
	Context       Context   `json:"context"`
	PlaceName     string    `json:"placeName"`
	PlaceID       int64     `json:"placeId"`
	GameID        int64     `json:"gameId"`
	State         State     `json:"state"`
	PluginVersion string    `json:"pluginVersion"`
	Capabilities  []string  `json:"capabilities"`
	ConnectedAt   time.Time `json:"connectedAt"`
}

// HasCapability reports whether the plugin announced capability c.
func (s SessionInfo) HasCapability(c string) bool {
	for _, have := range s.Capabilities {
		if have == c {
			return true
		}
	}
	return false
}
