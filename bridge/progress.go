package bridge

import (
	"encoding/json"
	"sync"
)

// progressQueue hands progress payloads to a caller's callback in order on
// its own goroutine, so a slow consumer never stalls the connection reader
// and nothing is dropped. drain waits for every queued payload.
type progressQueue struct {
	fn     func(json.RawMessage)
	mu     sync.Mutex
	cond   *sync.Cond
	items  []json.RawMessage
	closed bool
	done   chan struct{}
}

func newProgressQueue(fn func(json.RawMessage)) *progressQueue {
	q := &progressQueue{fn: fn, done: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.loop()
	return q
}

func (q *progressQueue) push(p json.RawMessage) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, p)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

func (q *progressQueue) loop() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		items := q.items
		q.items = nil
		closed := q.closed
		q.mu.Unlock()
		for _, p := range items {
			q.fn(p)
		}
		if closed && len(items) == 0 {
			return
		}
	}
}

func (q *progressQueue) drain() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
	<-q.done
}
