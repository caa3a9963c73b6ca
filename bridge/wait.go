package bridge

import (
	"context"
	"errors"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// ResolveWaiting resolves t on conn, and with wait > 0 keeps trying until a
// matching session connects or wait runs out (Studio still starting in CI).
// An ambiguous target (several Studio instances, or an id prefix that
// matches several) fails at once: waiting cannot make it unambiguous. The CLI's --wait and the terminal's start-up
// both use it.
func ResolveWaiting(ctx context.Context, conn Conn, t Target, wait time.Duration) (protocol.SessionInfo, error) {
	if wait <= 0 {
		return conn.Resolve(ctx, t)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	events := conn.WatchSessions(ctx)
	for {
		s, err := conn.Resolve(ctx, t)
		var re *ResolveError
		if err == nil || !errors.As(err, &re) || re.Kind == MultipleInstances || re.Kind == AmbiguousSession {
			return s, err
		}
		select {
		case <-events:
		case <-ctx.Done():
			return s, err
		}
	}
}
