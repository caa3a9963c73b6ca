package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestLogsSubscriptionAnnouncesNewLines: a client subscribed to
// studio://sessions/{id}/logs hears notifications/resources/updated for
// that URI when the session logs new lines; the server subscribes the
// plugin to its "log" events for it, and unsubscribes when the client does.
func TestLogsSubscriptionAnnouncesNewLines(t *testing.T) {
	w := newWorld(t)
	pl, sid := kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit,
		PlaceName: "Place", Handler: fakeplugin.Studio})
	updated := make(chan string, 64)
	s, cs := w.serve(t, Options{}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			select {
			case updated <- r.Params.URI:
			default:
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go WatchResources(ctx, s, w.bridge)
	uri := sessionURIPrefix + sid + "/logs"
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
	saw := func(action string) func() bool {
		return func() bool {
			for _, r := range pl.Requests() {
				if r.Action == action && strings.Contains(string(r.Payload), `"log"`) {
					return true
				}
			}
			return false
		}
	}
	kit.WaitFor(t, 10*time.Second, "the plugin to be subscribed to log events", saw("subscribe"))

	// A line logged before the host relays the server's watch is not
	// seen; each try logs one more.
	seq := int64(0)
	got := false
	for deadline := time.Now().Add(10 * time.Second); !got && time.Now().Before(deadline); {
		seq++
		if err := pl.SendLog(seq, "Print", "line"); err != nil {
			t.Fatal(err)
		}
		select {
		case u := <-updated:
			if u != uri {
				t.Fatalf("updated %q, want %q", u, uri)
			}
			got = true
		case <-time.After(LogUpdateInterval + 100*time.Millisecond):
		}
	}
	if !got {
		t.Fatalf("no notifications/resources/updated for %s after %d lines", uri, seq)
	}

	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	kit.WaitFor(t, 10*time.Second, "the plugin to be unsubscribed", saw("unsubscribe"))
}
