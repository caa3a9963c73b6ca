package bridge

import (
	"context"
	"sync"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// SubscriberBudgetBytes bounds the plugin events one local subscriber
// (`logs --follow`, a watch, an MCP resource) may have waiting: past it, new
// events are dropped for that subscriber alone and counted, and a log
// follower reports the gap from the events' seq (PROTOCOL.md 4). An event
// is charged its payload plus eventOverheadBytes.
const SubscriberBudgetBytes = 16 << 20

// eventOverheadBytes is what an event costs besides its payload: the
// struct, its strings' headers and the queue slot.
const eventOverheadBytes = 256

// eventCost is what ev is charged against a subscriber's budget.
func eventCost(ev protocol.Event) int {
	return len(ev.Payload) + len(ev.SessionID) + len(ev.Event) + eventOverheadBytes
}

// eventQueue is one local subscriber's events not yet received, bounded by
// bytes rather than by count: a plugin's events can be 1 MiB each, so a
// count bound (it was 65,536 events) let one reader that stopped reading
// hold gigabytes. A pump goroutine hands the events to the subscriber's
// channel, in order.
type eventQueue struct {
	limit int
	out   chan protocol.Event // unbuffered: what waits is in items, charged
	wake  chan struct{}       // capacity 1: items became non-empty

	mu      sync.Mutex
	items   []protocol.Event
	held    int   // bytes charged for items and the event being handed over
	dropped int64 // events dropped for this subscriber
}

func newEventQueue(limit int) *eventQueue {
	return &eventQueue{limit: limit, out: make(chan protocol.Event), wake: make(chan struct{}, 1)}
}

// offer queues ev unless the budget is spent; it never blocks. A single
// event larger than the budget is still taken when nothing else waits.
func (q *eventQueue) offer(ev protocol.Event) bool {
	cost := eventCost(ev)
	q.mu.Lock()
	if q.held > 0 && q.held+cost > q.limit {
		q.dropped++
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, ev)
	q.held += cost
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// usage reports the bytes held and the events dropped so far.
func (q *eventQueue) usage() (held int, dropped int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held, q.dropped
}

// pump hands queued events to out until ctx ends, then closes out.
func (q *eventQueue) pump(ctx context.Context) {
	defer close(q.out)
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			q.items = nil // let a burst's backing array go
			q.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		ev := q.items[0]
		q.items[0] = protocol.Event{}
		q.items = q.items[1:]
		q.mu.Unlock()
		select {
		case q.out <- ev:
		case <-ctx.Done():
			return
		}
		q.mu.Lock()
		q.held -= eventCost(ev)
		q.mu.Unlock()
	}
}
