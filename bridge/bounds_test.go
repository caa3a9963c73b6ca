package bridge

// Bounds on what the host reads (PROTOCOL.md section 4): the handshake's
// timeout and frame limit, a plugin's frame limit after it, the budget of
// large frames, and the sizes of session fields and tables. Deep nesting,
// which could crash a host, is tested on the real binary (test/e2e).

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestSilentConnectionClosedWithPolicyViolation: a connection that sends no
// hello is closed with 1008 and a reason once the handshake timeout passes
// (it was dropped without a close frame, 1006).
func TestSilentConnectionClosedWithPolicyViolation(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	tb := newTestBedWith(t, Options{HandshakeTimeout: timeout})
	for _, tt := range []struct{ path, hello string }{
		{protocol.PathPlugin, protocol.TypeHello},
		{protocol.PathClient, protocol.TypeClientHello},
	} {
		t.Run(tt.path, func(t *testing.T) {
			r := openRaw(t, tb.port, tt.path)
			start := time.Now()
			ce := r.expectClose(websocket.StatusPolicyViolation)
			if took := time.Since(start); took < timeout-50*time.Millisecond {
				t.Fatalf("closed after %s, before the %s timeout", took, timeout)
			}
			if want := "no " + tt.hello + " within"; !strings.Contains(ce.Reason, want) {
				t.Fatalf("close reason %q does not say %q", ce.Reason, want)
			}
			tb.assertServing(t)
		})
	}
}

// TestPreHandshakeFrameLimit: a first frame is read up to
// PreHandshakeMaxFrameBytes, not the endpoint's full limit.
func TestPreHandshakeFrameLimit(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	// padded returns a valid hello frame of exactly n bytes (an unknown
	// member pads it; receivers ignore unknown members).
	padded := func(m protocol.Message, n int) []byte {
		data, err := protocol.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		head := string(data[:len(data)-1]) + `,"pad":"`
		return []byte(head + strings.Repeat("p", n-len(head)-2) + `"}`)
	}
	client := clientHello(t)
	plugin := goodHello("limit")
	for _, tt := range []struct {
		name string
		path string
		data []byte
		want string // the answer: a frame type, or "" for a 1009 close
	}{
		{"client hello at the limit", protocol.PathClient, padded(client, protocol.PreHandshakeMaxFrameBytes), protocol.TypeClientChallenge},
		{"client hello one byte over", protocol.PathClient, padded(client, protocol.PreHandshakeMaxFrameBytes+1), ""},
		{"client hello of 8 MiB", protocol.PathClient, padded(client, 8<<20), ""},
		{"plugin hello at the limit", protocol.PathPlugin, padded(plugin, protocol.PreHandshakeMaxFrameBytes), protocol.TypeWelcome},
		{"plugin hello one byte over", protocol.PathPlugin, padded(plugin, protocol.PreHandshakeMaxFrameBytes+1), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := openRaw(t, tb.port, tt.path)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = r.c.Write(ctx, websocket.MessageText, tt.data) // the host may close mid-write
			if tt.want != "" {
				r.expect(tt.want)
				return
			}
			r.expectClose(websocket.StatusMessageTooBig)
			tb.assertServing(t)
		})
	}
}

// TestOversizedPluginFrame: after the handshake a plugin frame is read up
// to PluginMaxFrameBytes; one byte more closes the session with 1009.
func TestOversizedPluginFrame(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	// event frame of session sid, of exactly n bytes
	eventFrame := func(sid string, n int) []byte {
		head, tail := `{"type":"event","sessionId":"`+sid+`","event":"log","payload":"`, `"}`
		return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
	}
	t.Run("at the limit", func(t *testing.T) {
		r, w := rawPlugin(t, tb.port, goodAttach("big", protocol.ContextEdit))
		r.write(websocket.MessageText, eventFrame(w.SessionID, protocol.PluginMaxFrameBytes))
		r.assertOpen()
		if _, ok := tb.host.hub.get(w.SessionID); !ok {
			t.Fatal("session gone after a frame at the limit")
		}
		tb.assertServing(t)
	})
	t.Run("one byte over", func(t *testing.T) {
		r, w := rawPlugin(t, tb.port, goodAttach("big", protocol.ContextEdit))
		waitSessionState(t, tb.client, w.SessionID, true)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.c.Write(ctx, websocket.MessageText, eventFrame(w.SessionID, protocol.PluginMaxFrameBytes+1)) // the host may close mid-write
		r.expectClose(websocket.StatusMessageTooBig)
		// The session lost its socket: it is held for the resume grace,
		// carried by no socket, and a re-attach with its secret resumes it.
		h := hostOf(t, tb.host)
		eventually(t, "the session to lose its socket", func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			s := h.plugins[w.SessionID]
			return s != nil && s.sock == nil
		})
		back := goodAttach("big", protocol.ContextEdit)
		back.PreviousSessionID, back.ResumeSecret = w.SessionID, w.ResumeSecret
		if _, again := rawPlugin(t, tb.port, back); again.SessionID != w.SessionID || !again.Resumed {
			t.Fatalf("re-attach after the 1009: %+v, want %s resumed", again, w.SessionID)
		}
		tb.assertServing(t)
	})
	t.Run("oversized hello", func(t *testing.T) {
		r := openRaw(t, tb.port, protocol.PathPlugin)
		h := goodHello("big")
		h.PluginVersion = strings.Repeat("p", protocol.PluginMaxFrameBytes)
		data, _ := protocol.Encode(h)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.c.Write(ctx, websocket.MessageText, data)
		r.expectClose(websocket.StatusMessageTooBig)
		tb.assertServing(t)
	})
	if s := waitSessions(t, tb.client, 1); s[0].SessionID != tb.sid {
		t.Fatalf("sessions left: %+v", s)
	}
}

// TestFrameBudget: large frames after the handshake share
// ClientFrameBudgetBytes. Two clients whose maximum-size frames are still
// arriving hold all of it: a third client's large frame waits until one of
// them is done, while small frames are served at once.
func TestFrameBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
	tb := newTestBed(t)
	h := hostOf(t, tb.host)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A staller starts a large frame and does not finish it: a fragment
	// past LargeFrameBytes makes the host reserve the frame limit.
	var stallers []*rawConn
	for range protocol.ClientFrameBudgetBytes / protocol.ClientMaxFrameBytes {
		r, _ := rawClient(t, tb.port)
		w, err := r.c.Writer(ctx, websocket.MessageText)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(`{"type":"ping","pad":"` + strings.Repeat("s", protocol.LargeFrameBytes+4096))); err != nil {
			t.Fatal(err)
		}
		stallers = append(stallers, r)
	}
	eventually(t, "the stallers to hold the whole frame budget", func() bool {
		if h.clientFrameBudget.TryAcquire(1) {
			h.clientFrameBudget.Release(1)
			return false
		}
		return true
	})

	large, _ := rawClient(t, tb.port)
	large.write(websocket.MessageText, []byte(`{"type":"ping","t":7,"pad":"`+strings.Repeat("x", 2*protocol.LargeFrameBytes)+`"}`))
	answered := make(chan int64, 1)
	go func() {
		for {
			_, data, err := large.c.Read(ctx) // not r.read: it may not fail the test off its goroutine
			if err != nil {
				return
			}
			if m, err := protocol.Decode(data); err == nil && m.Type() == protocol.TypePong {
				answered <- m.(protocol.Pong).T
				return
			}
		}
	}()
	small, _ := rawClient(t, tb.port)
	small.assertOpen() // small frames do not wait
	select {
	case <-answered:
		t.Fatal("a large frame was served while the budget was full")
	case <-time.After(300 * time.Millisecond):
	}
	_ = stallers[0].c.CloseNow()
	select {
	case got := <-answered:
		if got != 7 {
			t.Fatalf("pong %d, want 7", got)
		}
	case <-ctx.Done():
		t.Fatal("the large frame was never served after the budget freed up")
	}
	tb.assertServing(t)
}

// TestClientWelcomeWorstCase: with every session the host may hold, each
// with every field at its limit and made of the characters JSON escapes
// most expensively, the client-welcome still fits in the client frame limit.
// A control character grows sixfold (\u0001), as much as any byte does (an
// invalid UTF-8 byte or, with HTML escaping, "<" grow the same).
func TestClientWelcomeWorstCase(t *testing.T) {
	t.Parallel()
	for _, fill := range []string{"\x01"} {
		worst := func(n int) string {
			s := strings.Repeat(fill, n/len(fill))
			return s + strings.Repeat("\x01", n-len(s))
		}
		hb := newHub(testLog(t))
		caps := make([]string, protocol.MaxCapabilities)
		for i := range caps {
			caps[i] = worst(protocol.MaxCapabilityBytes)
		}
		for i := range protocol.MaxSessions {
			hb.apply(protocol.SessionConnected, protocol.SessionInfo{
				SessionID:     uuid.NewString(),
				InstanceID:    fmt.Sprintf("%0128d", i),
				Context:       protocol.ContextClient,
				PlaceName:     worst(protocol.MaxPlaceNameBytes),
				PlaceID:       math.MinInt64,
				GameID:        math.MinInt64,
				State:         protocol.StatePaused,
				PluginVersion: worst(protocol.MaxPluginVersionBytes),
				Capabilities:  caps,
				ConnectedAt:   time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -23*3600-59*60)),
			})
		}
		sessions, err := hb.encodedSessions()
		if err != nil {
			t.Fatal(err)
		}
		data, err := protocol.Encode(clientWelcomeWire{ProtocolVersion: protocol.Version, ClientID: uuid.NewString(),
			HostVersion: strings.Repeat("9", 64), HostStartedAt: math.MaxInt64, HeartbeatIntervalMs: math.MaxInt32, Sessions: sessions})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("fill %q: worst-case client-welcome of %d sessions is %.1f MiB (limit %d MiB)", fill, protocol.MaxSessions, float64(len(data))/(1<<20), protocol.ClientMaxFrameBytes>>20)
		if len(data) > protocol.ClientMaxFrameBytes {
			t.Fatalf("fill %q: worst-case client-welcome is %d bytes, over ClientMaxFrameBytes (%d)", fill, len(data), protocol.ClientMaxFrameBytes)
		}
	}
}

// TestSessionFieldsBounded: capability names, sessions per Studio window
// and in all are bounded where sessions register (an attach).
func TestSessionFieldsBounded(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	t.Run("capability name too long", func(t *testing.T) {
		r := rawWindow(t, tb.port, "caps")
		a := goodAttach("caps", protocol.ContextEdit)
		a.Capabilities = []string{"exec", strings.Repeat("c", protocol.MaxCapabilityBytes+1)}
		r.send(a)
		if rej := r.expectReject(protocol.CodeInvalidAttach, "capabilities"); rej.Ref != a.Ref {
			t.Fatalf("reject %+v, want one for ref %s", rej, a.Ref)
		}
		r.assertOpen()
	})
	t.Run("capability name at the limit", func(t *testing.T) {
		a := goodAttach("caps", protocol.ContextEdit)
		a.Capabilities = []string{strings.Repeat("c", protocol.MaxCapabilityBytes)}
		rawPlugin(t, tb.port, a)
	})
	t.Run("sessions per Studio window", func(t *testing.T) {
		// Windows that share an instanceId (a misbehaving plugin) still
		// count as one window.
		for i := range protocol.MaxSessionsPerInstance {
			rawPlugin(t, tb.port, goodAttach("crowded", []protocol.Context{protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient}[i%3]))
		}
		r := rawWindow(t, tb.port, "crowded")
		r.send(protocol.Attach{Ref: "b", InstanceID: "crowded", Context: protocol.ContextClient})
		if rej := r.expectReject(protocol.CodeTooManySessions, "crowded"); rej.Ref != "b" {
			t.Fatalf("reject %+v, want one for ref b", rej)
		}
		r.assertOpen()
		tb.assertServing(t)
	})
	t.Run("sessions in all", func(t *testing.T) {
		h := hostOf(t, tb.host)
		// The sessions of the subtests above end as their windows say
		// goodbye; wait for them to go, or one going would make room.
		eventually(t, "the earlier subtests' sessions to end", func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return len(h.plugins) == 1
		})
		keeper, kw := rawPlugin(t, tb.port, goodAttach("keeper", protocol.ContextEdit))
		// Fill the host's table up to MaxSessions with placeholders (a
		// thousand real sockets would only make the test slow).
		h.mu.Lock()
		var fillers []string
		for len(h.plugins) < protocol.MaxSessions {
			id := uuid.NewString()
			h.plugins[id] = &pluginSession{info: protocol.SessionInfo{SessionID: id, InstanceID: "filler"}}
			fillers = append(fillers, id)
		}
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			for _, id := range fillers {
				delete(h.plugins, id)
			}
			h.mu.Unlock()
		}()
		r := rawWindow(t, tb.port, "one-too-many")
		r.send(goodAttach("one-too-many", protocol.ContextEdit))
		r.expectReject(protocol.CodeTooManySessions, strconv.Itoa(protocol.MaxSessions))
		r.assertOpen()
		// A session taken over with its secret is not one more.
		_ = keeper.c.CloseNow()
		back := goodAttach("keeper", protocol.ContextEdit)
		back.PreviousSessionID, back.ResumeSecret = kw.SessionID, kw.ResumeSecret
		if _, w := rawPlugin(t, tb.port, back); w.SessionID != kw.SessionID {
			t.Fatalf("the keeper came back as %s, not %s", w.SessionID, kw.SessionID)
		}
		tb.assertServing(t)
	})
}

// TestStateEventFieldsBounded: a state event obeys the attach's field
// limits; a 1 MB placeName is a bad frame, and the session keeps its name.
func TestStateEventFieldsBounded(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	r, w := rawPlugin(t, tb.port, goodAttach("state", protocol.ContextEdit))
	waitSessionState(t, tb.client, w.SessionID, true)
	big, _ := json.Marshal(map[string]string{"state": "Play", "placeName": strings.Repeat("n", 1_000_000)})
	r.send(protocol.Event{SessionID: w.SessionID, Event: "state", Payload: big})
	if n := r.expect(protocol.TypeError).(protocol.ErrorNotice); n.Code != protocol.CodeInvalidPayload || !strings.Contains(n.Message, "placeName") {
		t.Fatalf("notice %+v", n)
	}
	ok, _ := json.Marshal(map[string]string{"state": "Play", "placeName": strings.Repeat("n", protocol.MaxPlaceNameBytes)})
	r.send(protocol.Event{SessionID: w.SessionID, Event: "state", Payload: ok})
	eventually(t, "the state change at the limit to reach the client", func() bool {
		s, found := tb.client.hub.get(w.SessionID)
		return found && s.State == protocol.StatePlay
	})
	if s, _ := tb.host.hub.get(w.SessionID); len(s.PlaceName) != protocol.MaxPlaceNameBytes {
		t.Fatalf("placeName of %d bytes", len(s.PlaceName))
	}
}

// TestWatchesBounded: a client watches at most MaxWatchesPerClient
// sessions; more watches are answered with an error and cost nothing.
func TestWatchesBounded(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	h := hostOf(t, tb.host)
	r, welcome := rawClient(t, tb.port)
	cc := hostClientConn(t, tb.host, welcome.ClientID)
	for i := range protocol.MaxWatchesPerClient + 100 {
		r.send(protocol.Watch{SessionID: fmt.Sprintf("w-%d", i)})
	}
	r.send(protocol.Watch{SessionID: "w-0"}) // a duplicate is no new watch
	for range 100 {
		if n := r.expect(protocol.TypeError).(protocol.ErrorNotice); n.Code != protocol.CodeTooManyWatches {
			t.Fatalf("notice %+v", n)
		}
	}
	r.assertOpen() // and no further notice came before the pong
	h.mu.Lock()
	watches, keys := cc.watches, len(h.watching)
	h.mu.Unlock()
	if watches != protocol.MaxWatchesPerClient || keys > protocol.MaxWatchesPerClient+1 {
		t.Fatalf("client watches %d, host tracks %d sessions; want at most %d", watches, keys, protocol.MaxWatchesPerClient)
	}
	r.send(protocol.Unwatch{SessionID: "w-0"})
	r.send(protocol.Watch{SessionID: tb.sid})
	r.assertOpen() // room again: no notice
	r.send(protocol.Watch{SessionID: strings.Repeat("x", protocol.MaxWatchIDBytes+1)})
	if n := r.expect(protocol.TypeError).(protocol.ErrorNotice); n.Code != protocol.CodeMalformedFrame {
		t.Fatalf("notice %+v", n)
	}
	tb.assertServing(t)
}
