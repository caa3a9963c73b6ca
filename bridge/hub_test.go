package bridge

import (
	"context"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestHubResetReportsReconnectedSessions: a joining client's new list may
// hold a session under its old id that reconnected meanwhile (it kept its
// sessionId across a failover). Watchers must hear of it, because the
// plugin forgot its subscriptions when it reconnected.
func TestHubResetReportsReconnectedSessions(t *testing.T) {
	t.Parallel()
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

// TestHubResetTakesAHostsListAsIs: a joining client's hub keeps the host's
// list (already in display order) instead of copying and sorting it again,
// and still sorts one that is not in order.
func TestHubResetTakesAHostsListAsIs(t *testing.T) {
	t.Parallel()
	s := func(inst string, c protocol.Context) protocol.SessionInfo {
		return protocol.SessionInfo{SessionID: inst + string(c), InstanceID: inst, Context: c}
	}
	sorted := []protocol.SessionInfo{s("A", protocol.ContextEdit), s("A", protocol.ContextServer), s("B", protocol.ContextEdit)}
	h := newHub(slog.New(slog.DiscardHandler))
	h.reset(sorted)
	got, _ := h.snapshot()
	if &got[0] != &sorted[0] {
		t.Fatal("a sorted host list was copied")
	}
	shuffled := []protocol.SessionInfo{s("C", protocol.ContextEdit), s("B", protocol.ContextEdit), s("A", protocol.ContextServer), s("A", protocol.ContextEdit)}
	h.reset(shuffled)
	got, _ = h.snapshot()
	if want := append(sorted, s("C", protocol.ContextEdit)); !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}
