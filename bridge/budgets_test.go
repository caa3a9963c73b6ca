package bridge

// Regression tests of issue 22's resource attacks, scaled down: each
// asserts facts (bytes held, events dropped and counted, codes, close
// statuses, a real call that still succeeds), never a duration.

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

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

// next reads r until a frame of type want, skipping every other frame
// (heartbeats, session events, notices the test provoked on purpose).
func next(t *testing.T, r *rawConn, want string) protocol.Message {
	t.Helper()
	for {
		m, err := r.read(10 * time.Second)
		if err != nil {
			t.Fatalf("waiting for %q: %v", want, err)
		}
		if m.Type() == want {
			return m
		}
	}
}

// sendChunked sends payload to request id of session sid as chunks of
// MaxChunkBytes, and the response announcing them when respond is set.
func sendChunked(r *rawConn, sid, id string, payload []byte, respond bool) int {
	parts := protocol.Split(payload, protocol.MaxChunkBytes)
	for i, part := range parts {
		r.send(protocol.Chunk{SessionID: sid, ID: id, Seq: i, Data: part})
	}
	if respond {
		r.send(protocol.Response{SessionID: sid, ID: id, OK: true, Chunks: len(parts)})
	}
	return len(parts)
}

// Attack 4: a session answers calls with chunks and never the response.
// Reassembly is charged to one host-wide budget: a reply that does not fit
// fails its call with HOST_BUSY (and the plugin is told to cancel it), what
// is held never passes the budget, an honest chunked reply still arrives
// whole, and every byte is given back once the calls end.
func TestChunkReassemblyIsChargedToAHostWideBudget(t *testing.T) {
	const budget = 3 << 20
	h := newV2Host(t, HostConfig{})
	h.reassembly = protocol.NewByteBudget(budget)
	r, sid := rawV2Session(t, h.port, "chunker")

	type result struct {
		payload json.RawMessage
		err     error
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := func() (chan result, string) {
		done := make(chan result, 1)
		go func() {
			p, err := h.call(ctx, sid, "exec", json.RawMessage(`{}`), time.Minute, nil)
			done <- result{p, err}
		}()
		return done, next(t, r, protocol.TypeRequest).(protocol.Request).ID
	}
	honest, honestID := start()
	flooded, floodedID := start()
	stalled, stalledID := start()

	big := func(n int) []byte { return []byte(`"` + strings.Repeat("x", n-2) + `"`) }
	honestReply := big(2 << 20)
	sendChunked(r, sid, honestID, honestReply, false) // 2 MiB held, the response yet to come
	sendChunked(r, sid, floodedID, big(2<<20), false) // cannot fit beside it
	if c := next(t, r, protocol.TypeCancel).(protocol.Cancel); c.ID != floodedID {
		t.Fatalf("the host cancelled request %s, want %s", c.ID, floodedID)
	}
	if res := <-flooded; codeOf(res.err) != protocol.CodeHostBusy {
		t.Fatalf("the call whose reply did not fit ended with %v, want %s", res.err, protocol.CodeHostBusy)
	}
	if used := h.reassembly.Used(); used > budget || used != int64(len(honestReply)) {
		t.Fatalf("reassembly holds %d bytes; want the honest reply's %d (budget %d)", used, len(honestReply), budget)
	}

	r.send(protocol.Response{SessionID: sid, ID: honestID, OK: true, Chunks: (len(honestReply) + protocol.MaxChunkBytes - 1) / protocol.MaxChunkBytes})
	if res := <-honest; res.err != nil || string(res.payload) != string(honestReply) {
		t.Fatalf("the honest chunked reply: err %v, %d bytes, want %d", res.err, len(res.payload), len(honestReply))
	}
	r.send(protocol.Chunk{SessionID: sid, ID: stalledID, Seq: 0, Data: `"abc`})
	cancel() // the stalled call ends without its response
	if res := <-stalled; codeOf(res.err) != protocol.CodeCancelled {
		t.Fatalf("the stalled call ended with %v, want %s", res.err, protocol.CodeCancelled)
	}
	eventually(t, "every reassembly byte to be given back", func() bool { return h.reassembly.Used() == 0 })
}

// A client's relayed calls are bounded: past MaxCallsPerClient in flight a
// request is answered HOST_BUSY at once (the host holds nothing for it), and
// once one call finishes the next goes through.
func TestRelayedCallsPerClientAreBounded(t *testing.T) {
	h := newV2Host(t, HostConfig{})
	plugin, sid := rawV2Session(t, h.port, "slow")
	client, _ := rawClient(t, h.port)
	for i := range protocol.MaxCallsPerClient {
		client.send(protocol.Request{ID: strconv.Itoa(i), SessionID: sid, Action: "exec", Payload: json.RawMessage(`{}`)})
	}
	var first protocol.Request
	for i := range protocol.MaxCallsPerClient {
		req := next(t, plugin, protocol.TypeRequest).(protocol.Request)
		if i == 0 {
			first = req
		}
	}
	client.send(protocol.Request{ID: "over", SessionID: sid, Action: "exec", Payload: json.RawMessage(`{}`)})
	resp := next(t, client, protocol.TypeResponse).(protocol.Response)
	if resp.ID != "over" || resp.OK || resp.Error == nil || resp.Error.Code != protocol.CodeHostBusy {
		t.Fatalf("the call past the bound got %+v (error %+v), want HOST_BUSY", resp, resp.Error)
	}

	plugin.send(protocol.Response{SessionID: sid, ID: first.ID, OK: true, Payload: json.RawMessage(`1`)})
	if resp := next(t, client, protocol.TypeResponse).(protocol.Response); !resp.OK {
		t.Fatalf("the answered call: %+v", resp)
	}
	client.send(protocol.Request{ID: "after", SessionID: sid, Action: "exec", Payload: json.RawMessage(`{}`)})
	next(t, plugin, protocol.TypeRequest) // relayed: there is room again
}

// callRoom: the count bound, the bytes bound, and one call alone always
// has room (its size is checked against what the plugin accepts).
func TestCallRoom(t *testing.T) {
	tests := []struct {
		calls, bytes, size int
		busy               bool
	}{
		{0, 0, 10, false},
		{protocol.MaxCallsPerClient - 1, 0, 10, false},
		{protocol.MaxCallsPerClient, 0, 10, true},
		{1, protocol.MaxCallBytesPerClient - 10, 10, false},
		{1, protocol.MaxCallBytesPerClient - 10, 11, true},
		{0, 0, 2 * protocol.MaxCallBytesPerClient, false},
	}
	for _, tt := range tests {
		if got := callRoom(tt.calls, tt.bytes, tt.size); (got != nil) != tt.busy || (got != nil && got.Code != protocol.CodeHostBusy) {
			t.Errorf("callRoom(%d, %d, %d) = %v, want busy %v", tt.calls, tt.bytes, tt.size, got, tt.busy)
		}
	}
}
