package bridge

// Bounds on what the host reads (PROTOCOL.md section 4): the handshake's
// timeout and frame limit, and the budget of large frames. Deep nesting,
// which could crash a host, is tested on the real binary (test/e2e).

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestSilentConnectionClosedWithPolicyViolation: a connection that sends no
// hello is closed with 1008 and a reason once the handshake timeout passes
// (it was dropped without a close frame, 1006).
func TestSilentConnectionClosedWithPolicyViolation(t *testing.T) {
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
	client := protocol.ClientHello{ProtocolVersions: protocol.SupportedVersions, ClientVersion: "1.0.0"}
	plugin := goodHello("limit", protocol.ContextEdit)
	for _, tt := range []struct {
		name string
		path string
		data []byte
		want string // the answer: a frame type, or "" for a 1009 close
	}{
		{"client hello at the limit", protocol.PathClient, padded(client, protocol.PreHandshakeMaxFrameBytes), protocol.TypeClientWelcome},
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

// TestFrameBudget: large frames after the handshake share
// FrameBudgetBytes. Two clients whose maximum-size frames are still
// arriving hold all of it: a third client's large frame waits until one of
// them is done, while small frames are served at once.
func TestFrameBudget(t *testing.T) {
	tb := newTestBed(t)
	h := hostOf(t, tb.host)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A staller starts a large frame and does not finish it: a fragment
	// past LargeFrameBytes makes the host reserve the frame limit.
	var stallers []*rawConn
	for range protocol.FrameBudgetBytes / protocol.ClientMaxFrameBytes {
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
	poll(t, "the stallers to hold the whole frame budget", func() bool {
		if h.frameBudget.TryAcquire(1) {
			h.frameBudget.Release(1)
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

// hostOf is b's host.
func hostOf(t *testing.T, b *Bridge) *Host {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.cur.(*Host)
	if !ok {
		t.Fatal("not the host")
	}
	return h
}
