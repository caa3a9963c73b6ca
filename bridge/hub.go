package bridge

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"

	json "github.com/segmentio/encoding/json"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// sessionEventBuffer is the buffer of a local session watcher. A watcher
// that lets it fill loses events instead of stalling the connection that
// produced them. Its bytes are bounded too: a session record is at most a
// few KiB (its fields are bounded, protocol/limits.go). Plugin events,
// which can be 1 MiB each, are bounded by bytes (subscriber.go).
const sessionEventBuffer = 256

// hub is this process's mirror of the session list and its fan-out to local
// subscribers. Whichever backend is current feeds it; it outlives failovers.
type hub struct {
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]protocol.SessionInfo
	sorted   []protocol.SessionInfo // display order; nil when stale
	encoded  []byte                 // JSON of sorted; nil when stale
	changed  chan struct{}          // closed and replaced on every change
	watchers map[chan SessionEvent]struct{}
	events   map[string]map[*eventQueue]struct{}
	dropped  int

	// eventBudget is each plugin-event subscriber's byte budget
	// (SubscriberBudgetBytes; tests shrink it).
	eventBudget int
}

func newHub(log *slog.Logger) *hub {
	return &hub{
		log:      log,
		sessions: map[string]protocol.SessionInfo{},
		changed:  make(chan struct{}),
		watchers: map[chan SessionEvent]struct{}{},
		events:   map[string]map[*eventQueue]struct{}{},

		eventBudget: SubscriberBudgetBytes,
	}
}

// apply records one session change and tells watchers.
func (h *hub) apply(kind string, s protocol.SessionInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.applyLocked(kind, s)
}

func (h *hub) applyLocked(kind string, s protocol.SessionInfo) {
	if kind == protocol.SessionDisconnected {
		if _, ok := h.sessions[s.SessionID]; !ok {
			return
		}
		delete(h.sessions, s.SessionID)
	} else {
		if _, ok := h.sessions[s.SessionID]; !ok {
			kind = protocol.SessionConnected
		}
		h.sessions[s.SessionID] = s
	}
	h.sorted, h.encoded = nil, nil
	close(h.changed)
	h.changed = make(chan struct{})
	ev := SessionEvent{Kind: kind, Session: s}
	for w := range h.watchers {
		select {
		case w <- ev:
		default:
			h.dropped++
		}
	}
}

// reset makes the mirror equal to snapshot, telling watchers the difference.
// A new backend calls it with the list its host has. It replaces the list in
// one step: a joining client receives every session at once.
func (h *hub) reset(snapshot []protocol.SessionInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	next := make(map[string]protocol.SessionInfo, len(snapshot))
	// Events are built only for watchers: a one-shot process joining a
	// host with a thousand sessions has none, and would pay for a thousand.
	var events []SessionEvent
	changed := false
	note := func(kind string, s protocol.SessionInfo) {
		changed = true
		if len(h.watchers) > 0 {
			events = append(events, SessionEvent{Kind: kind, Session: s})
		}
	}
	for _, s := range snapshot {
		next[s.SessionID] = s
		old, ok := h.sessions[s.SessionID]
		switch {
		case !ok:
			note(protocol.SessionConnected, s)
		case !sameSession(old, s):
			note(protocol.SessionUpdated, s)
		}
	}
	for id, s := range h.sessions {
		if _, ok := next[id]; !ok {
			note(protocol.SessionDisconnected, s)
		}
	}
	h.sessions = next
	if !changed {
		return
	}
	h.sorted, h.encoded = nil, nil
	if len(snapshot) > 0 && len(next) == len(snapshot) && sessionsSorted(snapshot) {
		h.sorted = snapshot // a host's list arrives in display order; never modified
	}
	close(h.changed)
	h.changed = make(chan struct{})
	for w := range h.watchers {
		for _, ev := range events {
			select {
			case w <- ev:
			default:
				h.dropped++
			}
		}
	}
}

func sameSession(a, b protocol.SessionInfo) bool {
	return a.SessionID == b.SessionID && a.State == b.State && a.PlaceName == b.PlaceName &&
		a.PlaceID == b.PlaceID && a.GameID == b.GameID && a.InstanceID == b.InstanceID && a.Context == b.Context &&
		a.ConnectedAt.Equal(b.ConnectedAt) // a plugin that reconnected kept its id but lost its subscriptions
}

// snapshot returns the sessions in display order and a channel closed at the
// next change.
func (h *hub) snapshot() ([]protocol.SessionInfo, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sortedLocked(), h.changed
}

// ids lists the sessions' ids.
func (h *hub) ids() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Keys(h.sessions))
}

// snapshotHaving is snapshot, plus whether every session in ids is in the
// returned list. Both come from one moment: a list checked for completeness
// apart from the check could be an older one (a resolve would then act on a
// list that lacks a window).
func (h *hub) snapshotHaving(ids []string) ([]protocol.SessionInfo, <-chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := true
	for _, id := range ids {
		if _, ok := h.sessions[id]; !ok {
			all = false
			break
		}
	}
	return h.sortedLocked(), h.changed, all
}

// missing lists the ids in ids that are not listed.
func (h *hub) missing(ids []string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, id := range ids {
		if _, ok := h.sessions[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// touch wakes everyone waiting on the changed channel without a change of
// the list: what they wait for besides it (the sessions expected back)
// changed.
func (h *hub) touch() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.changed)
	h.changed = make(chan struct{})
}

// changedCh is closed at the next change of the session list.
func (h *hub) changedCh() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// encodedSessions returns the session list as JSON, encoded once per change:
// every joining client receives it.
func (h *hub) encodedSessions() (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.encoded == nil {
		raw, err := json.Marshal(h.sortedLocked())
		if err != nil {
			return nil, err
		}
		h.encoded = raw
	}
	return h.encoded, nil
}

func (h *hub) sortedLocked() []protocol.SessionInfo {
	if h.sorted == nil {
		out := make([]protocol.SessionInfo, 0, len(h.sessions))
		for _, s := range h.sessions {
			out = append(out, s)
		}
		h.sorted = SortSessions(out)
		if h.sorted == nil {
			h.sorted = []protocol.SessionInfo{}
		}
	}
	// Callers may keep the slice; it is never modified, only replaced.
	return h.sorted
}

func (h *hub) get(id string) (protocol.SessionInfo, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.sessions[id]
	return s, ok
}

func (h *hub) watchSessions(ctx context.Context) <-chan SessionEvent {
	ch := make(chan SessionEvent, sessionEventBuffer)
	h.mu.Lock()
	h.watchers[ch] = struct{}{}
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		delete(h.watchers, ch)
		close(ch)
		h.mu.Unlock()
	})
	return ch
}

// watchEvents subscribes to one session's plugin events. first reports
// whether this is the session's first local subscriber; last is called when
// the final one leaves. The subscriber's events wait within the hub's
// eventBudget bytes; past it they are dropped (and counted) until it reads
// again. The channel is closed once ctx ends.
func (h *hub) watchEvents(ctx context.Context, sessionID string, onFirst, onLast func()) <-chan protocol.Event {
	q := h.subscribe(ctx, sessionID, onFirst, onLast)
	return q.out
}

// subscribe is watchEvents, returning the subscriber's queue.
func (h *hub) subscribe(ctx context.Context, sessionID string, onFirst, onLast func()) *eventQueue {
	h.mu.Lock()
	q := newEventQueue(h.eventBudget)
	subs := h.events[sessionID]
	if subs == nil {
		subs = map[*eventQueue]struct{}{}
		h.events[sessionID] = subs
	}
	subs[q] = struct{}{}
	first := len(subs) == 1
	h.mu.Unlock()
	if first && onFirst != nil {
		onFirst()
	}
	go q.pump(ctx)
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		delete(subs, q)
		last := len(subs) == 0
		if last {
			delete(h.events, sessionID)
		}
		h.mu.Unlock()
		if last && onLast != nil {
			onLast()
		}
	})
	return q
}

// watched lists the sessions that have local event subscribers.
func (h *hub) watched() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Keys(h.events))
}

// publish hands a plugin event to the session's local subscribers.
func (h *hub) publish(ev protocol.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for q := range h.events[ev.SessionID] {
		if !q.offer(ev) {
			h.dropped++
		}
	}
}
