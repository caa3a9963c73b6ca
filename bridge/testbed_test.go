package bridge

// The test bed of the tests that misuse the host on purpose (bad input,
// bounds, browsers, tokens): a host, a joined client and one well-behaved
// fake plugin, with checks that the host still serves them; and rawConn, a
// peer driven frame by frame to send the host what no real plugin or client
// would and to read exactly what it answers.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// testBed is a host, a joined client and one well-behaved fake plugin: the
// "everyone else" each bad-input test must leave unharmed.
type testBed struct {
	port   int
	host   *Bridge
	client *Bridge
	plugin *fakeplugin.Plugin
	sid    string
}

// echoHandler answers "echo" with its payload and stalls "stall" forever
// (until the host cancels it).
func echoHandler(action string, payload json.RawMessage) fakeplugin.Reply {
	switch action {
	case "stall":
		return fakeplugin.Reply{Stall: true}
	case "echo":
		return fakeplugin.Reply{Payload: payload}
	}
	return fakeplugin.Reply{Payload: map[string]string{"action": action}}
}

func newTestBed(t *testing.T) *testBed {
	t.Helper()
	return newTestBedWith(t, Options{})
}

func newTestBedWith(t *testing.T, opts Options) *testBed {
	t.Helper()
	tb := &testBed{port: kit.FreePort(t)}
	tb.host = connectWith(t, tb.port, opts)
	tb.client = connectWith(t, tb.port, opts)
	if tb.host.Role() != RoleHost || tb.client.Role() != RoleClient {
		t.Fatalf("roles: host %s, client %s", tb.host.Role(), tb.client.Role())
	}
	tb.plugin, tb.sid = kit.Plugin(t, fakeplugin.Config{Port: tb.port, InstanceID: "good", PlaceName: "Good Place", Handler: echoHandler})
	waitSessions(t, tb.client, 1)
	return tb
}

// assertRoutes checks that a "state" call from the joined client to sid
// reaches the raw plugin r, and that the answer r gives (JSON) comes back;
// what names the call in a failure.
func (tb *testBed) assertRoutes(t *testing.T, what, sid string, r *rawConn, answer string) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		out, err := tb.client.Call(context.Background(), sid, "state", nil, CallOptions{Timeout: 5 * time.Second})
		if err == nil && string(out) != answer {
			err = fmt.Errorf("answer %s, want %s", out, answer)
		}
		errc <- err
	}()
	req := r.expect(protocol.TypeRequest).(protocol.Request)
	if req.Action != "state" {
		t.Fatalf("%s: request %+v, want a state request", what, req)
	}
	r.send(protocol.Response{SessionID: req.SessionID, ID: req.ID, OK: true, Payload: json.RawMessage(answer)})
	if err := <-errc; err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// assertServing checks that the host still serves everyone else: the good
// plugin answers a call relayed from the joined client, the host answers a
// local call too, and GET /health is 200.
//
// It asserts an answer, not its speed: the echo may queue behind a flood on
// the plugin's own socket, so the bound only catches a host that hangs.
func (tb *testBed) assertServing(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := strconv.FormatInt(time.Now().UnixNano(), 10)
	for name, b := range map[string]*Bridge{"client": tb.client, "host": tb.host} {
		out, err := b.Call(ctx, tb.sid, "echo", json.RawMessage(`{"n":`+n+`}`), CallOptions{Timeout: 30 * time.Second})
		if err != nil || string(out) != `{"n":`+n+`}` {
			t.Fatalf("host no longer serves: echo via %s = %s, %v", name, out, err)
		}
	}
	if _, err := kit.Health[Health](tb.port); err != nil {
		t.Fatalf("after bad input: %v", err)
	}
}

// noKeepAlive is an HTTP client that leaves no idle connections (goleak).
func noKeepAlive() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
}

// healthOf is the host on port's /health.
func healthOf(t *testing.T, port int) Health {
	t.Helper()
	if c := memClient(port); c != nil {
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, protocol.PathHealth))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h Health
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatalf("/health: %v", err)
		}
		return h
	}
	h, err := kit.Health[Health](port)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// waitSessionState waits until b lists (present) or no longer lists sid.
func waitSessionState(t *testing.T, b *Bridge, sid string, present bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := b.hub.get(sid); ok == present {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s present=%v, want %v", sid, !present, present)
		}
		time.Sleep(5 * time.Millisecond)
	}
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

// hostClientConn finds a joined client's connection on b's host.
func hostClientConn(t *testing.T, b *Bridge, id string) *clientConn {
	t.Helper()
	h := hostOf(t, b)
	h.mu.Lock()
	defer h.mu.Unlock()
	cc := h.clients[id]
	if cc == nil {
		t.Fatalf("host has no client %s", id)
	}
	return cc
}

// rawConn is a hand-driven WebSocket peer on /plugin or /client.
type rawConn struct {
	t *testing.T
	c *websocket.Conn
}

func dialRaw(port int, path string, hdr http.Header, host string) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client := memClient(port)
	if client == nil {
		client = noKeepAlive()
	}
	return websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", port, path), &websocket.DialOptions{
		HTTPClient: client,
		HTTPHeader: hdr,
		Host:       host,
	})
}

func openRaw(t *testing.T, port int, path string) *rawConn {
	t.Helper()
	c, _, err := dialRaw(port, path, nil, "")
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	c.SetReadLimit(protocol.ClientMaxFrameBytes)
	t.Cleanup(func() { _ = c.CloseNow() })
	return &rawConn{t: t, c: c}
}

func (r *rawConn) write(typ websocket.MessageType, data []byte) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.c.Write(ctx, typ, data); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

func (r *rawConn) send(m protocol.Message) {
	r.t.Helper()
	data, err := protocol.Encode(m)
	if err != nil {
		r.t.Fatal(err)
	}
	r.write(websocket.MessageText, data)
}

// read returns the next frame, decoded, or the read error.
func (r *rawConn) read(timeout time.Duration) (protocol.Message, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	typ, data, err := r.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageText {
		r.t.Fatalf("host sent a binary frame: %q", data)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		r.t.Fatalf("host sent an undecodable frame %q: %v", data, err)
	}
	return m, nil
}

// expect reads until a frame of type want, skipping heartbeats and session
// events (which the host may interleave at any time) and failing on anything
// else.
func (r *rawConn) expect(want string) protocol.Message {
	r.t.Helper()
	for {
		m, err := r.read(5 * time.Second)
		if err != nil {
			r.t.Fatalf("waiting for %q: %v (close status %d)", want, err, websocket.CloseStatus(err))
		}
		switch m.Type() {
		case want:
			return m
		case protocol.TypePing, protocol.TypeSessionEvent:
			continue
		}
		r.t.Fatalf("waiting for %q, got %#v", want, m)
	}
}

// expectClose reads until the connection ends and checks its close status.
func (r *rawConn) expectClose(want websocket.StatusCode) websocket.CloseError {
	r.t.Helper()
	for {
		_, err := r.read(10 * time.Second)
		if err == nil {
			continue // frames queued before the close
		}
		var ce websocket.CloseError
		if got := websocket.CloseStatus(err); got != want {
			r.t.Fatalf("connection ended with %v (status %d), want status %d", err, got, want)
		}
		_ = errors.As(err, &ce)
		return ce
	}
}

// assertOpen proves the host still reads and answers this connection.
func (r *rawConn) assertOpen() {
	r.t.Helper()
	stamp := time.Now().UnixNano()
	r.send(protocol.Ping{T: stamp})
	if pong := r.expect(protocol.TypePong).(protocol.Pong); pong.T != stamp {
		r.t.Fatalf("pong %d, want %d", pong.T, stamp)
	}
}

// goodHello is the hello of Studio window instance.
func goodHello(instance string) protocol.Hello {
	return protocol.Hello{ProtocolVersions: []int{protocol.PluginProtocolVersion}, PluginVersion: "1.0.0", InstanceID: instance, Nonce: protocol.NewNonce()}
}

// goodAttach is the attach of the DataModel of context ctx in Studio window
// instance.
func goodAttach(instance string, ctx protocol.Context) protocol.Attach {
	return protocol.Attach{
		Ref: string(ctx), InstanceID: instance, Context: ctx, PlaceName: "Raw Place", State: protocol.StateEdit,
		Capabilities: []string{"exec"},
	}
}

// rawWindow opens a raw plugin socket and says hello as Studio window
// instance, up to the host's welcome; no session is attached yet.
func rawWindow(t *testing.T, port int, instance string) *rawConn {
	t.Helper()
	r := openRaw(t, port, protocol.PathPlugin)
	hello := goodHello(instance)
	r.send(hello)
	w := r.expect(protocol.TypeWelcome).(protocol.Welcome)
	if w.MaxFrameBytes != protocol.PluginMaxFrameBytes || w.ProtocolVersion != protocol.PluginProtocolVersion {
		t.Fatalf("welcome: %+v", w)
	}
	r.pair(hello, w, kit.Token(t).PairingKey())
	return r
}

// pair checks the host's proof in w and answers the window's own under key
// (the test's pairing key, or another one to be refused).
func (r *rawConn) pair(hello protocol.Hello, w protocol.Welcome, key []byte) {
	r.t.Helper()
	if !protocol.ProofMatches(protocol.HostProof(key, w.Nonce, hello.Nonce, hello.InstanceID), w.Proof) {
		r.t.Fatalf("the host's proof %q does not check out under the test's key", w.Proof)
	}
	r.send(protocol.Pair{Proof: protocol.PluginProof(key, w.Nonce, hello.Nonce, hello.InstanceID)})
}

// rawPlugin opens a raw plugin socket for a's window and attaches a: a
// window of one session, driven by hand. When the test ends the window says
// goodbye, so its session ends then rather than being held for the resume
// grace.
func rawPlugin(t *testing.T, port int, a protocol.Attach) (*rawConn, protocol.Attached) {
	t.Helper()
	r := rawWindow(t, port, a.InstanceID)
	t.Cleanup(func() {
		data, _ := protocol.Encode(protocol.Goodbye{Reason: "test done"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = r.c.Write(ctx, websocket.MessageText, data) // fails if the test closed it already
		_ = r.c.Close(websocket.StatusNormalClosure, "")
	})
	return r, r.attach(a)
}

// attach attaches a on r and returns the host's attached.
func (r *rawConn) attach(a protocol.Attach) protocol.Attached {
	r.t.Helper()
	r.send(a)
	at := r.expect(protocol.TypeAttached).(protocol.Attached)
	if at.Ref != a.Ref || uuid.Validate(at.SessionID) != nil || at.ResumeSecret == "" {
		r.t.Fatalf("attached %+v for ref %q", at, a.Ref)
	}
	return at
}

// leave says goodbye and closes r, so its sessions end at once rather than
// being held for the resume grace.
func (r *rawConn) leave() {
	r.t.Helper()
	r.send(protocol.Goodbye{Reason: "test done"})
	_ = r.c.Close(websocket.StatusNormalClosure, "")
}

// rawClient completes a client handshake by hand.
func rawClient(t *testing.T, port int) (*rawConn, protocol.ClientWelcome) {
	t.Helper()
	r := openRaw(t, port, protocol.PathClient)
	return r, rawJoin(t, r, clientHello(t))
}
