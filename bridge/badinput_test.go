package bridge

// Hostile and broken peers: every test here feeds the host something a
// well-behaved plugin or client never sends, over real sockets, and then
// checks that the host still serves everyone else.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestBadFramesGetErrorNotices(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	type frame struct {
		name   string
		binary bool
		data   string
		code   protocol.Code
	}
	common := []frame{
		{"garbage", false, "hello there, host", protocol.CodeMalformedFrame},
		{"truncated JSON", false, `{"type":"ping"`, protocol.CodeMalformedFrame},
		{"empty frame", false, "", protocol.CodeMalformedFrame},
		{"JSON array", false, `[{"type":"ping"}]`, protocol.CodeMalformedFrame},
		{"JSON string", false, `"ping"`, protocol.CodeMalformedFrame},
		{"JSON number", false, `42`, protocol.CodeMalformedFrame},
		{"JSON null", false, `null`, protocol.CodeMalformedFrame},
		{"binary frame", true, `{"type":"ping","t":1}`, protocol.CodeMalformedFrame},
		{"binary garbage", true, "\x00\xff\xfe\x01", protocol.CodeMalformedFrame},
		{"no type", false, `{"id":"1","ok":true}`, protocol.CodeMalformedFrame},
		{"empty type", false, `{"type":""}`, protocol.CodeMalformedFrame},
		{"type not a string", false, `{"type":7}`, protocol.CodeMalformedFrame},
		{"unknown type", false, `{"type":"teleport","to":"moon"}`, protocol.CodeUnknownMessage},
		{"type with different case", false, `{"type":"PING"}`, protocol.CodeUnknownMessage},
		{"reject sent to the host", false, `{"type":"reject","code":"X","message":"no"}`, protocol.CodeUnknownMessage},
		{"welcome sent to the host", false, `{"type":"welcome","protocolVersion":2}`, protocol.CodeUnknownMessage},
		{"ping with a string t", false, `{"type":"ping","t":"soon"}`, protocol.CodeMalformedFrame},
	}
	plugin := append([]frame{
		{"response without id", false, `{"type":"response","ok":true,"payload":1}`, protocol.CodeMalformedFrame},
		{"response with a numeric id", false, `{"type":"response","id":1,"ok":true}`, protocol.CodeMalformedFrame},
		{"failed response without error", false, `{"type":"response","id":"1","ok":false}`, protocol.CodeMalformedFrame},
		{"response with negative chunks", false, `{"type":"response","id":"1","ok":true,"chunks":-1}`, protocol.CodeMalformedFrame},
		{"progress without id", false, `{"type":"progress","payload":"line"}`, protocol.CodeMalformedFrame},
		{"chunk without id", false, `{"type":"chunk","seq":0,"data":"x"}`, protocol.CodeMalformedFrame},
		{"chunk with negative seq", false, `{"type":"chunk","id":"1","seq":-1,"data":"x"}`, protocol.CodeMalformedFrame},
		{"event without name", false, `{"type":"event","payload":{}}`, protocol.CodeMalformedFrame},
		{"second hello", false, `{"type":"hello","protocolVersions":[2],"instanceId":"X"}`, protocol.CodeUnknownMessage},
		{"request sent by a plugin", false, `{"type":"request","id":"1","action":"exec"}`, protocol.CodeUnknownMessage},
		{"client-hello on /plugin", false, `{"type":"client-hello","protocolVersions":[1]}`, protocol.CodeUnknownMessage},
	}, common...)
	client := append([]frame{
		{"request without id", false, `{"type":"request","action":"exec","sessionId":"x"}`, protocol.CodeMalformedFrame},
		{"request without action", false, `{"type":"request","id":"1","sessionId":"x"}`, protocol.CodeMalformedFrame},
		{"cancel without id", false, `{"type":"cancel"}`, protocol.CodeMalformedFrame},
		{"watch without session", false, `{"type":"watch"}`, protocol.CodeMalformedFrame},
		{"unwatch without session", false, `{"type":"unwatch"}`, protocol.CodeMalformedFrame},
		{"plugin hello on /client", false, `{"type":"hello","protocolVersions":[2],"instanceId":"X"}`, protocol.CodeUnknownMessage},
		{"response sent by a client", false, `{"type":"response","id":"1","ok":true}`, protocol.CodeUnknownMessage},
		{"host-transfer sent by a client", false, `{"type":"host-transfer","reason":"mine now"}`, protocol.CodeUnknownMessage},
	}, common...)

	for _, ep := range []struct {
		path   string
		frames []frame
	}{{protocol.PathPlugin, plugin}, {protocol.PathClient, client}} {
		for _, f := range ep.frames {
			t.Run(ep.path+"/"+f.name, func(t *testing.T) {
				var r *rawConn
				if ep.path == protocol.PathPlugin {
					r = rawWindow(t, tb.port, "raw")
				} else {
					r, _ = rawClient(t, tb.port)
				}
				typ := websocket.MessageText
				if f.binary {
					typ = websocket.MessageBinary
				}
				r.write(typ, []byte(f.data))
				n := r.expect(protocol.TypeError).(protocol.ErrorNotice)
				if n.Code != f.code {
					t.Fatalf("notice code %s (%q), want %s", n.Code, n.Message, f.code)
				}
				if n.Message == "" {
					t.Fatal("notice has no message")
				}
				r.assertOpen() // the connection survived the bad frame
				tb.assertServing(t)
			})
		}
	}
	// A plugin session that sent bad frames is still a working session.
	t.Run("session still answers after bad frames", func(t *testing.T) {
		r, w := rawPlugin(t, tb.port, goodAttach("raw-answering", protocol.ContextEdit))
		for _, f := range plugin {
			typ := websocket.MessageText
			if f.binary {
				typ = websocket.MessageBinary
			}
			r.write(typ, []byte(f.data))
			if n := r.expect(protocol.TypeError).(protocol.ErrorNotice); n.Code != f.code {
				t.Fatalf("%s: notice code %s, want %s", f.name, n.Code, f.code)
			}
		}
		tb.assertRoutes(t, "call to the raw session", w.SessionID, r, `{"state":"Edit"}`)
		tb.assertServing(t)
	})
}

func TestUnknownRequestIDs(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	r, w := rawPlugin(t, tb.port, goodAttach("raw", protocol.ContextEdit))
	frames := []struct {
		name string
		m    protocol.Message
	}{
		{"response", protocol.Response{SessionID: w.SessionID, ID: "999", OK: true, Payload: json.RawMessage(`1`)}},
		{"error response", protocol.Response{SessionID: w.SessionID, ID: "998", Error: protocol.Errorf(protocol.CodeInternal, "boom")}},
		{"progress", protocol.Progress{SessionID: w.SessionID, ID: "997", Payload: json.RawMessage(`"line"`)}},
		{"chunk", protocol.Chunk{SessionID: w.SessionID, ID: "996", Seq: 0, Data: `{"a"`}},
		{"chunked response", protocol.Response{SessionID: w.SessionID, ID: "995", OK: true, Chunks: 3}},
	}
	for _, f := range frames {
		t.Run(f.name, func(t *testing.T) {
			r.send(f.m)
			n := r.expect(protocol.TypeError).(protocol.ErrorNotice)
			var want string
			switch m := f.m.(type) {
			case protocol.Response:
				want = m.ID
			case protocol.Progress:
				want = m.ID
			case protocol.Chunk:
				want = m.ID
			}
			if n.Code != protocol.CodeUnknownRequest || n.Ref != want {
				t.Fatalf("notice %+v, want UNKNOWN_REQUEST for %s", n, want)
			}
			r.assertOpen()
			tb.assertServing(t)
		})
	}
	// A late answer to a request the host already gave up on is unknown too.
	t.Run("answer after timeout", func(t *testing.T) {
		errc := make(chan error, 1)
		go func() {
			_, err := tb.client.Call(context.Background(), w.SessionID, "exec", nil, CallOptions{Timeout: 300 * time.Millisecond})
			errc <- err
		}()
		req := r.expect(protocol.TypeRequest).(protocol.Request)
		if err := <-errc; protocol.CodeOf(err) != protocol.CodeTimeout {
			t.Fatalf("call: want TIMEOUT, got %v", err)
		}
		if c := r.expect(protocol.TypeCancel).(protocol.Cancel); c.ID != req.ID {
			t.Fatalf("cancel %q, want %q", c.ID, req.ID)
		}
		for _, m := range []protocol.Message{
			protocol.Progress{SessionID: w.SessionID, ID: req.ID, Payload: json.RawMessage(`"late"`)},
			protocol.Response{SessionID: w.SessionID, ID: req.ID, OK: true, Payload: json.RawMessage(`"late"`)},
		} {
			r.send(m)
			if n := r.expect(protocol.TypeError).(protocol.ErrorNotice); n.Code != protocol.CodeUnknownRequest || n.Ref != req.ID {
				t.Fatalf("late %s: notice %+v", m.Type(), n)
			}
		}
		r.assertOpen()
		tb.assertServing(t)
	})
}

// expectReject reads until a reject and checks its code and that its message
// mentions each of mentions (what the user needs to act on it).
func (r *rawConn) expectReject(code protocol.Code, mentions ...string) protocol.Reject {
	r.t.Helper()
	rej := r.expect(protocol.TypeReject).(protocol.Reject)
	if rej.Code != code {
		r.t.Fatalf("reject %s (%q), want %s", rej.Code, rej.Message, code)
	}
	for _, s := range mentions {
		if !strings.Contains(rej.Message, s) {
			r.t.Errorf("reject message %q does not mention %q", rej.Message, s)
		}
	}
	return rej
}

func TestHelloRejected(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	hello := func(edit func(*protocol.Hello)) string {
		h := goodHello("raw")
		edit(&h)
		data, err := protocol.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	tests := []struct {
		name     string
		path     string
		first    string
		code     protocol.Code
		mentions []string
	}{
		{"unsupported protocol version", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.ProtocolVersions = []int{3, 4} }),
			protocol.CodeUnsupportedProtocol, []string{"[2]", "[3 4]", "install-plugin"}},
		{"no protocol versions", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.ProtocolVersions = nil }),
			protocol.CodeUnsupportedProtocol, []string{"[2]", "[]"}},
		{"protocol version 0", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.ProtocolVersions = []int{0} }),
			protocol.CodeUnsupportedProtocol, []string{"[2]", "[0]"}},
		{"empty instanceId", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.InstanceID = "" }),
			protocol.CodeInvalidHello, []string{"instanceId"}},
		{"instanceId with spaces", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.InstanceID = "my studio" }),
			protocol.CodeInvalidHello, []string{"instanceId", "my studio"}},
		{"instanceId too long", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.InstanceID = strings.Repeat("a", 129) }),
			protocol.CodeInvalidHello, []string{"instanceId"}},
		{"instanceId with a slash", protocol.PathPlugin, hello(func(h *protocol.Hello) { h.InstanceID = "../etc" }),
			protocol.CodeInvalidHello, []string{"instanceId"}},
		{"first frame a ping", protocol.PathPlugin, `{"type":"ping","t":1}`,
			protocol.CodeInvalidHello, []string{"hello", "ping"}},
		{"first frame a response", protocol.PathPlugin, `{"type":"response","id":"1","ok":true}`,
			protocol.CodeInvalidHello, []string{"hello"}},
		{"first frame a client-hello", protocol.PathPlugin, `{"type":"client-hello","protocolVersions":[1]}`,
			protocol.CodeInvalidHello, []string{"hello"}},
		{"first frame garbage", protocol.PathPlugin, `GET / HTTP/1.1`,
			protocol.CodeInvalidHello, []string{"hello"}},
		{"first frame unknown type", protocol.PathPlugin, `{"type":"helo"}`,
			protocol.CodeInvalidHello, []string{"hello", "helo"}},
		{"hello with wrong field types", protocol.PathPlugin, `{"type":"hello","protocolVersions":"1","instanceId":"A","context":"edit"}`,
			protocol.CodeInvalidHello, []string{"hello"}},
		{"client: unsupported protocol version", protocol.PathClient, `{"type":"client-hello","protocolVersions":[9],"clientVersion":"9.0.0"}`,
			protocol.CodeUnsupportedProtocol, []string{"another studio-bridge version holds port", "stop it or upgrade", "[3]", "[9]"}},
		{"client: protocol 2 with the raw token", protocol.PathClient, `{"type":"client-hello","protocolVersions":[2,1],"clientVersion":"0.9.0","token":"an-old-clients-token-0123456789"}`,
			protocol.CodeUnsupportedProtocol, []string{"another studio-bridge version holds port", "stop it or upgrade"}},
		{"client: no nonce", protocol.PathClient, `{"type":"client-hello","protocolVersions":[3],"clientVersion":"1.0.0"}`,
			protocol.CodeInvalidHello, []string{"nonce"}},
		{"client: short nonce", protocol.PathClient, `{"type":"client-hello","protocolVersions":[3],"clientVersion":"1.0.0","nonce":"AAAA"}`,
			protocol.CodeInvalidHello, []string{"nonce"}},
		{"client: plugin hello", protocol.PathClient, hello(func(*protocol.Hello) {}),
			protocol.CodeInvalidHello, []string{"client-hello"}},
		{"client: garbage", protocol.PathClient, `\x00`,
			protocol.CodeInvalidHello, []string{"client-hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := openRaw(t, tb.port, tt.path)
			r.write(websocket.MessageText, []byte(tt.first))
			r.expectReject(tt.code, tt.mentions...)
			ce := r.expectClose(websocket.StatusPolicyViolation)
			if !strings.HasPrefix(ce.Reason, string(tt.code)) {
				t.Errorf("close reason %q does not start with the code", ce.Reason)
			}
			tb.assertServing(t)
		})
	}
	if s, _ := tb.host.hub.snapshot(); len(s) != 1 {
		t.Fatalf("rejected hellos left sessions behind: %+v", s)
	}
}

func TestBinaryHelloRejected(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	for _, path := range []string{protocol.PathPlugin, protocol.PathClient} {
		t.Run(path, func(t *testing.T) {
			r := openRaw(t, tb.port, path)
			data, _ := protocol.Encode(goodHello("X"))
			if path == protocol.PathClient {
				data, _ = protocol.Encode(protocol.ClientHello{ProtocolVersions: protocol.SupportedVersions})
			}
			r.write(websocket.MessageBinary, data)
			r.expectReject(protocol.CodeInvalidHello, "text frame")
			r.expectClose(websocket.StatusPolicyViolation)
		})
	}
	tb.assertServing(t)
}

// TestPluginMisbehavingMidRequest: a plugin answers a request with garbage,
// a frame of the wrong shape or one over the size limit. The caller gets a
// clear error (a timeout: the host cannot tell which request the frame
// answered, or, when the frame closed the socket, it holds the session for
// the plugin's return) and the host keeps serving everyone else.
func TestPluginMisbehavingMidRequest(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	tests := []struct {
		name   string
		raw    []byte
		want   protocol.Code
		notice bool // the plugin is told what was wrong with its frame
	}{
		{"not JSON", []byte("{this is not json"), protocol.CodeTimeout, true},
		{"binary noise", []byte{0, 1, 2, 0xff, 0xfe}, protocol.CodeTimeout, true},
		{"unknown type", []byte(`{"type":"answer","id":"1","ok":true}`), protocol.CodeTimeout, true},
		{"response without id", []byte(`{"type":"response","ok":true,"payload":1}`), protocol.CodeTimeout, true},
		// The host closes the socket (1009) and holds the session for the
		// resume grace: the plugin may come back with the answer.
		{"over the frame limit", fakeplugin.Oversize("1", protocol.PluginMaxFrameBytes+1), protocol.CodeTimeout, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, sid := kit.Plugin(t, fakeplugin.Config{Port: tb.port, InstanceID: "bad-" + strings.ReplaceAll(tt.name, " ", "-"), NoReconnect: true,
				Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Raw: tt.raw} }})
			waitSessionState(t, tb.client, sid, true)
			// The call's own timeout ends it (the code says so); the
			// caller is never left waiting on the bad frame.
			_, err := tb.client.Call(context.Background(), sid, "exec", nil, CallOptions{Timeout: 500 * time.Millisecond})
			if protocol.CodeOf(err) != tt.want {
				t.Fatalf("call answered by %q: want %s, got %v", tt.raw[:min(len(tt.raw), 40)], tt.want, err)
			}
			if tt.notice {
				deadline := time.Now().Add(2 * time.Second)
				for len(p.Notices()) == 0 {
					if time.Now().After(deadline) {
						t.Fatal("the plugin was not told its frame was bad")
					}
					time.Sleep(5 * time.Millisecond)
				}
				waitSessionState(t, tb.client, sid, true) // one bad frame does not cost the session
			} else {
				eventually(t, "the plugin to see the host's 1009", func() bool { return p.CloseStatus() == websocket.StatusMessageTooBig })
				waitSessionState(t, tb.client, sid, true) // held for the resume grace
			}
			tb.assertServing(t)
		})
	}
}

func TestClientVanishingMidRequestCancelsAtThePlugin(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	for _, tt := range []struct {
		name  string
		leave func(*rawConn)
	}{
		{"abrupt close", func(r *rawConn) { _ = r.c.CloseNow() }},
		{"close handshake", func(r *rawConn) { _ = r.c.Close(websocket.StatusNormalClosure, "bye") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tb.plugin.Requests())
			r, _ := rawClient(t, tb.port)
			if h := healthOf(t, tb.port); h.Clients != 2 {
				t.Fatalf("health: %d clients, want 2", h.Clients)
			}
			r.send(protocol.Request{ID: "c-1", Action: "stall", SessionID: tb.sid, TimeoutMs: 60_000, Payload: json.RawMessage(`{}`)})
			var req protocol.Request
			eventually(t, "the plugin to receive the request", func() bool {
				reqs := tb.plugin.Requests()
				if len(reqs) > before && reqs[len(reqs)-1].Action == "stall" {
					req = reqs[len(reqs)-1]
					return true
				}
				return false
			})
			cancels := len(tb.plugin.Cancels())
			tt.leave(r)
			eventually(t, "the plugin to see a cancel", func() bool {
				c := tb.plugin.Cancels()
				return len(c) > cancels && c[len(c)-1] == req.ID
			})
			eventually(t, "the host to drop the client", func() bool { return healthOf(t, tb.port).Clients == 1 })
			tb.assertServing(t)
		})
	}
}

func TestSilentPluginEvicted(t *testing.T) {
	// Not parallel: a heartbeat of tens of milliseconds is a wall-clock
	// contract a busy neighbour would break.
	const hb = 100 * time.Millisecond
	tb := newTestBedWith(t, Options{Heartbeat: hb})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := tb.host.WatchSessions(ctx)

	silent, sid := kit.Plugin(t, fakeplugin.Config{Port: tb.port, InstanceID: "silent", NoPong: true, NoReconnect: true})
	welcomed := time.Now()
	eventually(t, "the silent plugin to see the host's close", func() bool { return silent.CloseStatus() != -1 })
	evicted := time.Since(welcomed)
	t.Logf("silent plugin's socket closed %s after its attach (heartbeat %s)", evicted.Round(time.Millisecond), hb)
	if got := silent.CloseStatus(); got != protocol.CloseHeartbeatTimeout {
		t.Fatalf("silent plugin closed with status %d, want %d", got, protocol.CloseHeartbeatTimeout)
	}
	if evicted < protocol.MissedHeartbeats*hb-50*time.Millisecond {
		t.Fatalf("evicted after %s, before %d heartbeats of %s", evicted, protocol.MissedHeartbeats, hb)
	}
	// Its session lost its socket and is held for the resume grace; no
	// other session went.
	waitSessionState(t, tb.client, sid, true)
	for drained := false; !drained; {
		select {
		case ev := <-events:
			if ev.Kind == protocol.SessionDisconnected {
				t.Fatalf("session %s (%s) dropped at once", ev.Session.SessionID, ev.Session.InstanceID)
			}
		default:
			drained = true
		}
	}
	// The plugin that answers pings outlives many intervals on one connection
	// (a negative check: the pause spans five more heartbeats).
	time.Sleep(5 * hb)
	if tb.plugin.Sockets() != 1 || tb.plugin.SessionID() != tb.sid {
		t.Fatalf("the answering plugin reconnected: %d sockets", tb.plugin.Sockets())
	}
	tb.assertServing(t)
}

// TestSlowClientClosed fills a slow client's outgoing queue: the host closes
// it with 4001 and nobody else notices.
//
// To be deterministic under -race on a loaded machine the client does not
// simply stop reading: a blocked write would then time out (after
// protocol.WriteTimeout) before the host, decoding and relaying about 6 MB/s
// under the race detector, had queued protocol.PeerQueueBytes behind it. The
// client instead trickles: one frame a second through a small, fixed receive
// buffer, so no single write blocks for long while the queue still grows by
// megabytes a second. The flood stops as soon as the host shuts the peer.
func TestSlowClientClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("floods the host to its byte budgets: slow; runs in the full suite, alone (not in parallel)")
	}
	tb := newTestBed(t)
	slow, welcome := slowRawClient(t, tb.port)
	slow.send(protocol.Watch{SessionID: tb.sid})
	slow.assertOpen() // the watch is registered: frames are handled in order
	cc := hostClientConn(t, tb.host, welcome.ClientID)

	fast := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, _, err := slow.c.Read(ctx)
			cancel()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case <-fast:
			case <-time.After(time.Second):
				// Stay alive for the host's heartbeat while trickling.
				ping, _ := protocol.Encode(protocol.Ping{T: 1})
				wctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_ = slow.c.Write(wctx, websocket.MessageText, ping)
				cancel()
			}
		}
	}()
	defer func() {
		select {
		case <-fast:
		default:
			close(fast)
		}
	}()

	frame, err := protocol.Encode(protocol.Event{SessionID: tb.sid, Event: "log", Seq: 1,
		Payload: json.RawMessage(`"` + strings.Repeat("x", 900<<10) + `"`)})
	if err != nil {
		t.Fatal(err)
	}
	const maxBytes = 256 << 20
	sent := 0
flood:
	for sent < maxBytes {
		select {
		case <-cc.done():
			break flood
		default:
		}
		if err := tb.plugin.SendRaw(frame); err != nil {
			t.Fatal(err)
		}
		sent += len(frame)
		if sent/len(frame) == 8 {
			tb.assertServing(t) // others are served while the queue fills
		}
	}
	kit.Recv(t, cc.done(), 10*time.Second, fmt.Sprintf("the host to close the slow client (sent %d MB)", sent>>20))
	t.Logf("slow client closed after %d MB of events", sent>>20)
	if cc.code != protocol.CloseSlowPeer || !strings.Contains(cc.reason, "too slow") {
		t.Fatalf("slow client shut with %d %q, want %d", cc.code, cc.reason, protocol.CloseSlowPeer)
	}
	tb.assertServing(t)

	// Read the rest at full speed: the 4001 close arrives after the backlog.
	close(fast)
	err = kit.Recv(t, readErr, 20*time.Second, "the slow client's connection to end")
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != protocol.CloseSlowPeer || !strings.Contains(ce.Reason, "too slow") {
		t.Fatalf("slow client's connection ended with %v, want close %d", err, protocol.CloseSlowPeer)
	}
	eventually(t, "the host to drop the slow client", func() bool { return healthOf(t, tb.port).Clients == 1 })
	tb.assertServing(t)
}

// slowRawClient joins as a raw client whose socket receive buffer is small
// and fixed (no autotuning), so the host's writes back up quickly.
func slowRawClient(t *testing.T, port int) (*rawConn, protocol.ClientWelcome) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(16 << 10)
		}
		return c, err
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", port, protocol.PathClient),
		&websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(protocol.ClientMaxFrameBytes)
	t.Cleanup(func() { _ = c.CloseNow() })
	r := &rawConn{t: t, c: c}
	return r, rawJoin(t, r, clientHello(t))
}

// TestHostKillFailsRelayedCallsAsUnknownOutcome: when the host dies with
// calls in flight, a client must report UNKNOWN_OUTCOME for every one of
// them; the host must not answer them "cancelled" or "disconnected" on its
// way down. Regression: Host.Kill cancelled the relays, whose CANCELLED
// answers raced the closing sockets and sometimes won. The race is
// timing-dependent, so the test runs many calls in several rounds (before
// the fix, each round failed about 40% of the time).
func TestHostKillFailsRelayedCallsAsUnknownOutcome(t *testing.T) {
	t.Parallel()
	for round := 0; round < 4; round++ {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			tb := newTestBed(t)
			const n = 200
			errc := make(chan error, n)
			before := len(tb.plugin.Requests())
			for i := 0; i < n; i++ {
				go func() {
					_, err := tb.client.Call(context.Background(), tb.sid, "stall", nil, CallOptions{Timeout: time.Minute})
					errc <- err
				}()
			}
			eventually(t, "the plugin to receive every call", func() bool { return len(tb.plugin.Requests()) >= before+n })
			tb.host.Kill()
			codes := map[protocol.Code]int{}
			for i := 0; i < n; i++ {
				select {
				case err := <-errc:
					codes[protocol.CodeOf(err)]++
				case <-time.After(5 * time.Second):
					t.Fatalf("in-flight calls hung after the host died: %v so far", codes)
				}
			}
			if codes[protocol.CodeUnknownOutcome] != n {
				t.Fatalf("in-flight calls failed with %v; want all %d UNKNOWN_OUTCOME", codes, n)
			}
		})
	}
}
