package bridge

// Regression tests of issue 22's resource attacks, scaled down: each
// asserts facts (bytes held, events dropped and counted, codes, close
// statuses, a real call that still succeeds), never a duration.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// rawV2Session opens a raw protocol-v2 plugin socket on port, attaches one
// edit session of instance and returns the socket and the session id.
func rawV2Session(t *testing.T, port int, instance string) (*rawConn, string) {
	t.Helper()
	r := openRaw(t, port, protocol.PathPlugin)
	r.send(protocol.Hello{
		ProtocolVersions: []int{2}, PluginVersion: "1.0.0",
		InstanceID: instance, Context: protocol.ContextEdit, State: protocol.StateEdit,
	})
	r.expect(protocol.TypeWelcome)
	r.send(protocol.Attach{Ref: "edit", InstanceID: instance, Context: protocol.ContextEdit, State: protocol.StateEdit, Capabilities: []string{"exec"}})
	return r, r.expect(protocol.TypeAttached).(protocol.Attached).SessionID
}

// logEvent is a live "log" event number seq whose body is n bytes.
func logEvent(t *testing.T, sid string, seq int64, n int) protocol.Event {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"level": "Print", "body": strings.Repeat("x", n)})
	if err != nil {
		t.Fatal(err)
	}
	return protocol.Event{Event: "log", SessionID: sid, Seq: seq, Payload: payload}
}

// Attack 3: a plugin floods large log events while a local subscriber
// (`logs --follow` writing to a reader that does not read) reads nothing.
// The subscriber holds at most its byte budget; the rest is dropped and
// counted, and the events it does receive show the gap in their seq. A
// subscriber that keeps reading loses nothing.
func TestSubscriberHoldsAtMostItsByteBudget(t *testing.T) {
	const (
		budget = 2 << 20
		body   = 200 << 10
		flood  = 40 // 8 MiB in all, four times the budget
	)
	h := newV2Host(t, HostConfig{})
	h.hub.mu.Lock()
	h.hub.eventBudget = budget
	h.hub.mu.Unlock()
	r, sid := rawV2Session(t, h.port, "flooder")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stalled := h.hub.subscribe(ctx, sid, nil, nil) // never read until the flood is over
	reader := h.hub.watchEvents(ctx, sid, nil, nil)
	received := make(chan int64, flood+1)
	go func() {
		for ev := range reader {
			received <- ev.Seq
		}
	}()

	for seq := int64(1); seq <= flood; seq++ {
		r.send(logEvent(t, sid, seq, body))
	}
	for want := int64(1); want <= flood; want++ {
		if got := <-received; got != want {
			t.Fatalf("the reading subscriber got seq %d, want %d: it must lose nothing", got, want)
		}
	}

	held, dropped := stalled.usage()
	if held > budget {
		t.Fatalf("the stalled subscriber holds %d bytes, over its %d-byte budget", held, budget)
	}
	if dropped == 0 {
		t.Fatal("no event was dropped for the stalled subscriber, so it held the whole flood")
	}
	// What it holds, it still receives, in order; then the gap shows.
	var got []int64
	for {
		if held, _ := stalled.usage(); held == 0 {
			break
		}
		got = append(got, (<-stalled.out).Seq)
	}
	for i, seq := range got {
		if seq != int64(i+1) {
			t.Fatalf("kept events %v are not the first ones in order", got)
		}
	}
	if int64(len(got))+dropped != flood {
		t.Fatalf("kept %d and dropped %d of %d events", len(got), dropped, flood)
	}
	r.send(logEvent(t, sid, flood+1, 10))
	if next := (<-stalled.out).Seq; next-int64(len(got))-1 != dropped {
		t.Fatalf("after seq %d the next event is %d: the gap does not count the %d dropped", len(got), next, dropped)
	}
}
