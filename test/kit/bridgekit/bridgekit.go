// Package bridgekit holds the test helpers that need a *bridge.Bridge: an
// in-process bridge joined to the test's token. It is apart from package
// kit because the bridge package's own tests import kit, and kit importing
// bridge would be an import cycle.
package bridgekit

import (
	"context"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// ConnectTimeout bounds Connect: generous, for a loaded machine.
const ConnectTimeout = 15 * time.Second

// Connect runs bridge.Connect in the test process with the test's token
// (kit.Token, unless opt has one; nothing is read from the environment, so
// the test may be parallel), bounded by
// ConnectTimeout, and closes the bridge at cleanup. A test that wants the
// bridge to vanish as a crash would registers t.Cleanup(b.Kill) after it
// (cleanups run last-registered first; Close after Kill does nothing).
func Connect(tb testing.TB, opt bridge.Options) *bridge.Bridge {
	tb.Helper()
	if opt.Token.Value == "" {
		opt.Token = kit.Token(tb)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ConnectTimeout)
	defer cancel()
	b, err := bridge.Connect(ctx, opt)
	if err != nil {
		tb.Fatalf("bridge.Connect on port %d: %v", opt.Port, err)
	}
	tb.Cleanup(func() { _ = b.Close() })
	return b
}
