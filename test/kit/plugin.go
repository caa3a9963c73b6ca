package kit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// FastRetry is the reconnect schedule of tests' fake plugins: every 50 ms,
// not the real plugin's 2 s search, so that tests wait for nothing.
var FastRetry = []time.Duration{50 * time.Millisecond}

// Plugin starts a fake Studio plugin (one window, fakeplugin.Start) and
// waits (at most 10 s) until its first session is attached, returning the
// plugin and that session's id. Without RetryDelays it retries on
// FastRetry. Cleanup closes it.
func Plugin(tb testing.TB, cfg fakeplugin.Config) (*fakeplugin.Plugin, string) {
	tb.Helper()
	p := StartPlugin(tb, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := p.WaitWelcome(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return p, id
}

// StartPlugin starts a fake Studio plugin without waiting for a host: it
// connects whenever one listens on cfg.Port, retrying on FastRetry without
// RetryDelays. Cleanup closes it.
func StartPlugin(tb testing.TB, cfg fakeplugin.Config) *fakeplugin.Plugin {
	tb.Helper()
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = FastRetry
	}
	p := fakeplugin.Start(cfg)
	tb.Cleanup(p.Close)
	return p
}

// FakeStudio starts a fake plugin that answers as Studio does
// (fakeplugin.Studio): instance "A", an edit session of place "Place". It
// does not wait for a host (the test may start one later); cleanup closes
// it.
func FakeStudio(tb testing.TB, port int) *fakeplugin.Plugin {
	tb.Helper()
	return StartPlugin(tb, fakeplugin.Config{Port: port, InstanceID: "A", PlaceName: "Place", Handler: fakeplugin.Studio})
}

// Fleet starts n fake plugins on port at once, each its own Studio window
// ("studio-0000", …) with one edit session of its own place, answering with
// h and retrying on retry. With wait it waits (at most 60 s) for every
// session. Cleanup closes them all, concurrently.
func Fleet(tb testing.TB, port, n int, h fakeplugin.Handler, retry []time.Duration, wait bool) []*fakeplugin.Plugin {
	tb.Helper()
	plugins := make([]*fakeplugin.Plugin, n)
	for i := range plugins {
		plugins[i] = fakeplugin.Start(fakeplugin.Config{
			Port: port, InstanceID: fmt.Sprintf("studio-%04d", i), PlaceName: fmt.Sprintf("Place %d", i),
			PlaceID: int64(1000 + i), GameID: int64(2000 + i), Capabilities: []string{"exec", "query", "logs", "screenshot"},
			Handler: h, RetryDelays: retry,
		})
	}
	tb.Cleanup(func() {
		var wg sync.WaitGroup
		for _, p := range plugins {
			wg.Go(p.Close)
		}
		wg.Wait()
	})
	if wait {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for _, p := range plugins {
			if _, err := p.WaitAttached(ctx, 1); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return plugins
}

// Window starts a fake Studio plugin of several DataModels (cfg.Sessions)
// and waits (at most 10 s) until all are attached, returning it with their
// ids by context. Without RetryDelays it retries on FastRetry. Cleanup
// closes it.
func Window(tb testing.TB, cfg fakeplugin.Config) (*fakeplugin.Plugin, map[protocol.Context]string) {
	tb.Helper()
	p := StartPlugin(tb, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, err := p.WaitAttached(ctx, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return p, ids
}
