package bridge

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestHubResetReportsReconnectedSessions: a joining client's new list may
// hold a session under its old id that reconnected meanwhile (it kept its
// sessionId across a failover). Watchers must hear of it, because the
// plugin forgot its subscriptions when it reconnected.
func TestHubResetReportsReconnectedSessions(t *testing.T) {
	at := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	s := protocol.SessionInfo{SessionID: "s1", InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit, ConnectedAt: at}
	moved := s
	moved.ConnectedAt = at.Add(time.Second)
	renamed := moved
	renamed.PlaceName = "Other"
	tests := []struct {
		name string
		next []protocol.SessionInfo
		want []string // event kinds, in order
	}{
		{"unchanged", []protocol.SessionInfo{s}, nil},
		{"reconnected", []protocol.SessionInfo{moved}, []string{protocol.SessionUpdated}},
		{"reconnected and changed", []protocol.SessionInfo{renamed}, []string{protocol.SessionUpdated}},
		{"gone", nil, []string{protocol.SessionDisconnected}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHub(slog.New(slog.DiscardHandler))
			h.reset([]protocol.SessionInfo{s})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			events := h.watchSessions(ctx)
			h.reset(tt.next)
			var got []string
			for len(got) < len(tt.want) {
				select {
				case ev := <-events:
					got = append(got, ev.Kind)
				case <-time.After(time.Second):
					t.Fatalf("got events %v, want %v", got, tt.want)
				}
			}
			select {
			case ev := <-events:
				t.Fatalf("unexpected event %+v after %v", ev, got)
			case <-time.After(20 * time.Millisecond):
			}
		})
	}
}
