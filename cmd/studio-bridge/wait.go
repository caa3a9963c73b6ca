package main

import (
	"context"
	"errors"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// resolveWaiting resolves the target, and with wait > 0 keeps trying until a
// matching session connects or wait runs out (Studio still starting in CI).
func resolveWaiting(ctx context.Context, b bridge.Conn, t bridge.Target, wait time.Duration) (protocol.SessionInfo, error) {
	if wait <= 0 {
		return b.Resolve(ctx, t)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	events := b.WatchSessions(ctx)
	for {
		s, err := b.Resolve(ctx, t)
		var re *bridge.ResolveError
		if err == nil || !errors.As(err, &re) || re.Kind == bridge.MultipleInstances {
			return s, err
		}
		select {
		case <-events:
		case <-ctx.Done():
			return s, err
		}
	}
}
