package commands

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
)

// NoSessionsError is a resolution that found no Studio session at all,
// told with where the command looked and for how long: a plugin set to
// another port (or a forgotten --port) looks exactly like no Studio.
type NoSessionsError struct {
	Err *bridge.ResolveError
	// Addr is the bridge host's address (Bridge.Addr).
	Addr string
	// Waited is --wait; zero when the command did not wait.
	Waited time.Duration
}

func (e *NoSessionsError) Error() string {
	waited := ""
	if e.Waited > 0 {
		waited = " after waiting " + humanDuration(e.Waited)
	}
	return fmt.Sprintf("No active sessions on %s%s. Is Studio running with the studio-bridge plugin installed? %s", where(e.Addr), waited, portAdvice)
}

// portAdvice is what to check when a plugin may be on another port.
const portAdvice = "The plugin must use the same port (its Settings button shows it); choose this side's port with --port or STUDIO_BRIDGE_PORT."

// where names a bridge address for people: "port 38741" on loopback.
func where(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && net.ParseIP(host).IsLoopback() {
		return "port " + port
	}
	return addr
}

func (e *NoSessionsError) Unwrap() error { return e.Err }

// ExplainNoSessions gives a resolution error that found no session at all
// the address it looked at and the wait (0: none); other errors are
// returned as they are.
func ExplainNoSessions(err error, addr string, waited time.Duration) error {
	var re *bridge.ResolveError
	if !errors.As(err, &re) || re.Kind != bridge.NoSessions || addr == "" {
		return err
	}
	return &NoSessionsError{Err: re, Addr: addr, Waited: waited}
}

// noSessionsNote is what the sessions command adds below NoSessionsHint
// (the MCP spec's fixed text) for people: the address conn looks at, when
// it can say (a *bridge.Bridge can), and that the plugin's port must match.
func noSessionsNote(conn bridge.Conn) string {
	a, ok := conn.(interface{ Addr() string })
	if !ok {
		return ""
	}
	return "Looked on " + where(a.Addr()) + ". " + portAdvice
}
