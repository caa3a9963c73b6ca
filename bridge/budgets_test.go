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

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// rawV2Session opens a raw protocol-v2 plugin socket on port, attaches one
// edit session of instance and returns the socket and the session id.
func rawV2Session(t *testing.T, port int, instance string) (*rawConn, string) {
	t.Helper()
	r := rawWindow(t, port, instance) // says hello and pairs
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
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
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

	// One event at a time: the reader has each before the next is sent, so
	// it never holds more than one (however slow the machine), while the
	// stalled subscriber accumulates all of them.
	for seq := int64(1); seq <= flood; seq++ {
		r.send(logEvent(t, sid, seq, body))
		if got := <-received; got != seq {
			t.Fatalf("the reading subscriber got seq %d, want %d: it must lose nothing", got, seq)
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
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
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
	t.Parallel()
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
	t.Parallel()
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

// stallFirstFrame opens a raw connection on path and starts a first frame
// of more than HelloFreeBytes without finishing it, so that it reserves
// handshake budget.
func stallFirstFrame(t *testing.T, port int, path string) *rawConn {
	t.Helper()
	r := openRaw(t, port, path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := r.c.Writer(ctx, websocket.MessageText)
	if err != nil {
		t.Fatal(err)
	}
	// More than the writer buffers, so the fragment is sent now.
	if _, err := w.Write([]byte(`{"type":"hello","pad":"` + strings.Repeat("p", 2*protocol.HelloFreeBytes))); err != nil {
		t.Fatal(err)
	}
	return r
}

// Attack 9: connections that start a long first frame and stall hold the
// whole handshake budget. A real hello (under HelloFreeBytes) needs none of
// it: a real plugin registers and a real client joins meanwhile, and every
// staller is closed with 1008 once its frame's body is overdue, which gives
// the budget back.
func TestStalledFirstFramesStarveNoHello(t *testing.T) {
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
	h := newV2Host(t, HostConfig{})
	var stallers []*rawConn
	for range protocol.PreHandshakeBudgetBytes / protocol.PreHandshakeMaxFrameBytes {
		stallers = append(stallers, stallFirstFrame(t, h.port, protocol.PathPlugin))
	}
	eventually(t, "the stallers to hold the whole handshake budget", func() bool {
		if h.handshakeBudget.TryAcquire(1) {
			h.handshakeBudget.Release(1)
			return false
		}
		return true
	})
	rawV2Session(t, h.port, "real") // a real plugin registers
	rawClient(t, h.port)            // and a real client joins
	if !hasSessionOf(h.Host, "real") {
		t.Fatal("the real plugin's session is not listed")
	}
	ce := stallers[0].expectClose(websocket.StatusPolicyViolation)
	if !strings.Contains(ce.Reason, "did not arrive within") {
		t.Fatalf("a staller was closed with %q, want a reason saying its frame was overdue", ce.Reason)
	}
	eventually(t, "every staller's budget to be given back", func() bool {
		if h.handshakeBudget.TryAcquire(protocol.PreHandshakeBudgetBytes) {
			h.handshakeBudget.Release(protocol.PreHandshakeBudgetBytes)
			return true
		}
		return false
	})
}

func hasSessionOf(h *Host, instance string) bool {
	for _, s := range h.Sessions() {
		if s.InstanceID == instance {
			return true
		}
	}
	return false
}

// helloOnly opens a raw /plugin socket and says a protocol-v2 hello, up to
// the welcome, attaching nothing.
func helloOnly(t *testing.T, port int, instance string) *rawConn {
	t.Helper()
	return rawWindow(t, port, instance) // says hello and pairs
}

// startFrame writes the first n bytes of a text frame on r and leaves it
// unfinished.
func startFrame(t *testing.T, r *rawConn, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := r.c.Writer(ctx, websocket.MessageText)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(`{"type":"event","pad":"` + strings.Repeat("s", n))); err != nil {
		t.Fatal(err)
	}
}

// budgetFree reports whether sem has all of n free.
func budgetFree(sem interface {
	TryAcquire(int64) bool
	Release(int64)
}, n int64) bool {
	if sem.TryAcquire(n) {
		sem.Release(n)
		return true
	}
	return false
}

// Attacks 5 and 6: sockets that say hello, attach nothing and start a
// large frame. They are capped (a newcomer past the cap closes the one that
// waited longest with 1013, so they cannot keep a real plugin out), read
// only small frames (a large one closes them with 1009 and holds no frame
// budget), and are closed with 1008 when no attach comes in time (next
// test); meanwhile a real plugin registers and a real 200 KiB exec reply
// arrives.
func TestSocketsWithoutSessionsAreCappedAndHoldNoFrameBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
	const most = 4
	h := newV2Host(t, HostConfig{budgets: budgets{maxUnattached: most, attachTimeout: time.Hour}})
	var idle []*rawConn
	for i := range most + 1 {
		idle = append(idle, helloOnly(t, h.port, "idle-"+strconv.Itoa(i)))
	}
	ce := idle[0].expectClose(websocket.StatusTryAgainLater)
	if !strings.Contains(ce.Reason, "waited longest") {
		t.Fatalf("the oldest idle socket was closed with %q, want a reason saying it waited longest", ce.Reason)
	}
	idle = idle[1:]
	h.mu.Lock()
	n := len(h.idle)
	h.mu.Unlock()
	if n != most {
		t.Fatalf("%d sockets without a session are counted, want %d", n, most)
	}

	startFrame(t, idle[0], 2*protocol.LargeFrameBytes) // a large frame before any attach
	idle[0].expectClose(websocket.StatusMessageTooBig)
	eventually(t, "no plugin frame budget to be held by a socket without a session", func() bool {
		return budgetFree(h.pluginFrameBudget, protocol.PluginFrameBudgetBytes)
	})

	// A real plugin (the v2 fake) registers and answers a 200 KiB reply;
	// its socket counts against the cap only until it attaches.
	reply := strings.Repeat("r", 200<<10)
	_, ids := startWindow(t, fakeplugin.Config{Port: h.port, InstanceID: "real", Sessions: []fakeplugin.SessionConfig{{
		Context: protocol.ContextEdit,
		Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Payload: reply} },
	}}})
	got, err := h.callT(t, ids[protocol.ContextEdit], "exec", map[string]string{})
	if err != nil || string(got) != `"`+reply+`"` {
		t.Fatalf("the real exec: err %v, %d bytes", err, len(got))
	}
	for _, r := range idle[1:] {
		_ = r.c.CloseNow()
	}
	eventually(t, "every idle socket to be uncounted", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.idle) == 0
	})
}

// A socket that attaches nothing within the attach timeout is closed with
// 1008, saying so.
func TestSocketWithoutAnAttachIsClosed(t *testing.T) {
	t.Parallel()
	h := newV2Host(t, HostConfig{budgets: budgets{attachTimeout: 300 * time.Millisecond}})
	ce := helloOnly(t, h.port, "idle").expectClose(websocket.StatusPolicyViolation)
	if !strings.Contains(ce.Reason, "no attach") {
		t.Fatalf("an idle socket was closed with %q, want a reason saying it attached nothing", ce.Reason)
	}
}

// Attack 6 with sessions attached: peers that start a large frame and stall
// hold the plugin frame budget only until their frame's body is overdue
// (then they are closed with 1008 and it is given back), and a peer that
// waits for the budget longer than the wait bound is closed with 1013
// rather than kept waiting.
func TestStalledLargeFramesHoldTheFrameBudgetBriefly(t *testing.T) {
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
	t.Run("overdue body", func(t *testing.T) {
		h := newV2Host(t, HostConfig{budgets: budgets{bodyBase: 300 * time.Millisecond}})
		r, _ := rawV2Session(t, h.port, "staller")
		startFrame(t, r, 2*protocol.LargeFrameBytes)
		eventually(t, "the staller to reserve frame budget", func() bool {
			return !budgetFree(h.pluginFrameBudget, protocol.PluginFrameBudgetBytes)
		})
		ce := r.expectClose(websocket.StatusPolicyViolation)
		if !strings.Contains(ce.Reason, "did not arrive within") {
			t.Fatalf("closed with %q, want a reason saying the frame was overdue", ce.Reason)
		}
		eventually(t, "the budget to be given back", func() bool {
			return budgetFree(h.pluginFrameBudget, protocol.PluginFrameBudgetBytes)
		})
	})
	t.Run("budget wait", func(t *testing.T) {
		const frames = 2
		h := newV2Host(t, HostConfig{budgets: budgets{
			pluginFrames: frames * protocol.PluginMaxFrameBytes, bodyBase: time.Hour, budgetWait: 300 * time.Millisecond,
		}})
		for i := range frames {
			r, _ := rawV2Session(t, h.port, "holder-"+strconv.Itoa(i))
			startFrame(t, r, 2*protocol.LargeFrameBytes)
		}
		eventually(t, "the holders to fill the frame budget", func() bool { return !budgetFree(h.pluginFrameBudget, 1) })
		waiter, sid := rawV2Session(t, h.port, "waiter")
		waiter.send(logEvent(t, sid, 1, 200<<10))
		ce := waiter.expectClose(websocket.StatusTryAgainLater)
		if !strings.Contains(ce.Reason, "busy") {
			t.Fatalf("closed with %q, want a reason saying the host is busy", ce.Reason)
		}
	})
}
