package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Tests of plugin protocol v2 on the host (PROTOCOL.md section 12): one
// socket per Studio window, resume secrets, the in-flight grace, acks and
// re-sending, chunked requests, per-session liveness and socket refresh.

// v2Host is a host alone (no Bridge around it), so a test can set the
// resume grace and the heartbeat and call sessions directly.
type v2Host struct {
	*Host
	port int
}

func newV2Host(t testing.TB, cfg HostConfig) *v2Host {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listener = ln
	cfg.Version = "1.0.0"
	cfg.Log = testLog(t)
	cfg.Token = kit.Token(t)
	h := NewHost(cfg)
	t.Cleanup(h.Kill)
	return &v2Host{Host: h, port: ln.Addr().(*net.TCPAddr).Port}
}

func (h *v2Host) callT(t *testing.T, sid, action string, payload any) (json.RawMessage, error) {
	t.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.call(ctx, sid, action, raw, 30*time.Second, nil)
}

func startWindow(t testing.TB, cfg fakeplugin.Config) (*fakeplugin.Plugin, map[protocol.Context]string) {
	t.Helper()
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = []time.Duration{20 * time.Millisecond}
	}
	if cfg.InstanceID == "" {
		cfg.InstanceID = "win-" + strings.ReplaceAll(t.Name(), "/", "_")
	}
	return kit.Window(t, inMemory(cfg))
}

// eventually polls cond until it holds (or fails the test after 10 s).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	kit.WaitFor(t, 10*time.Second, what, cond)
}

func codeOf(err error) protocol.Code {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return perr.Code
	}
	return ""
}

func hasSession(h *Host, sid string) bool {
	for _, s := range h.Sessions() {
		if s.SessionID == sid {
			return true
		}
	}
	return false
}

func TestV2OneSocketCarriesAWindowsSessions(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	handler := func(ctx protocol.Context) fakeplugin.Handler {
		return func(action string, _ json.RawMessage) fakeplugin.Reply {
			return fakeplugin.Reply{Payload: map[string]string{"context": string(ctx)}}
		}
	}
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: handler(protocol.ContextEdit)},
		{Context: protocol.ContextServer, State: protocol.StateServer, Handler: handler(protocol.ContextServer)},
		{Context: protocol.ContextClient, State: protocol.StateClient, Handler: handler(protocol.ContextClient)},
	}})
	if w.Sockets() != 1 {
		t.Fatalf("%d sockets for one window", w.Sockets())
	}
	sessions := h.Sessions()
	if len(sessions) != 3 {
		t.Fatalf("host lists %d sessions, want 3: %+v", len(sessions), sessions)
	}
	for _, s := range sessions {
		if ids[s.Context] != s.SessionID || uuid.Validate(s.SessionID) != nil {
			t.Errorf("session %+v: window has id %s for %s", s, ids[s.Context], s.Context)
		}
	}
	for ctx, sid := range ids {
		out, err := h.callT(t, sid, "state", nil)
		if err != nil || string(out) != `{"context":"`+string(ctx)+`"}` {
			t.Errorf("call to %s = %s, %v", ctx, out, err)
		}
	}
}

// Issue 12 item 4 for v2: an attach naming a live session without its
// secret gets a fresh id and leaves the session alone; with the secret it
// takes the session over and the old socket is told in-band.
func TestV2AttachNeedsTheResumeSecret(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, InstanceID: "real", Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply {
			return fakeplugin.Reply{Payload: "real"}
		}},
	}})
	sid := ids[protocol.ContextEdit]

	imp := rawWindow(t, h.port, "real")
	for i, secret := range []string{"", "guessed"} {
		ref := "imp" + string(rune('a'+i))
		imp.send(protocol.Attach{Ref: ref, InstanceID: "real", Context: protocol.ContextEdit, PreviousSessionID: sid, ResumeSecret: secret})
		got := imp.expect(protocol.TypeAttached).(protocol.Attached)
		if got.Ref != ref || got.SessionID == sid || got.Resumed {
			t.Fatalf("attach without the secret (%q): %+v; live session is %s", secret, got, sid)
		}
		out, err := h.callT(t, sid, "state", nil)
		if err != nil || string(out) != `"real"` {
			t.Fatalf("the live session no longer reaches the real window: %s, %v", out, err)
		}
		if r := w.Replaced(); len(r) != 0 {
			t.Fatalf("the real window was told it was replaced: %v", r)
		}
	}

	imp.send(protocol.Attach{Ref: "take", InstanceID: "real", Context: protocol.ContextEdit, PreviousSessionID: sid, ResumeSecret: w.Secret(protocol.ContextEdit)})
	got := imp.expect(protocol.TypeAttached).(protocol.Attached)
	if got.SessionID != sid || !got.Resumed {
		t.Fatalf("attach with the secret: %+v, want session %s resumed", got, sid)
	}
	eventually(t, "the in-band replaced notice", func() bool {
		r := w.Replaced()
		return len(r) == 1 && r[0] == sid
	})
}

func TestV2PerSessionReject(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	r := rawWindow(t, h.port, "W")
	r.send(protocol.Attach{Ref: "bad", InstanceID: "other-window", Context: protocol.ContextServer})
	if rej := r.expectReject(protocol.CodeInvalidAttach); rej.Ref != "bad" {
		t.Fatalf("reject %+v, want one for ref bad", rej)
	}
	r.send(protocol.Attach{Ref: "edit", InstanceID: "W", Context: protocol.ContextEdit})
	att := r.expect(protocol.TypeAttached).(protocol.Attached)
	if att.Ref != "edit" || !hasSession(h.Host, att.SessionID) {
		t.Fatalf("attach after a reject on the same socket: %+v", att)
	}
	r.send(protocol.Detach{SessionID: att.SessionID, Reason: "Play stopped"})
	eventually(t, "the detached session to go", func() bool { return !hasSession(h.Host, att.SessionID) })
}

// Issue 13 item 3: the socket drops while an exec runs; the plugin keeps
// running it, re-attaches, and the caller gets the result; nothing runs
// twice.
func TestV2SocketDropMidExecCompletesAfterReconnect(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: time.Minute})
	release := make(chan struct{})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(action string, _ json.RawMessage) fakeplugin.Reply {
			<-release
			return fakeplugin.Reply{Payload: "ran"}
		}},
	}})
	sid := ids[protocol.ContextEdit]
	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := h.callT(t, sid, "exec", map[string]string{"script": "work()"})
		done <- result{out, err}
	}()
	eventually(t, "the exec to start", func() bool { return w.Runs(protocol.ContextEdit, "exec") == 1 })
	w.Drop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	again, err := w.WaitAttached(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if again[protocol.ContextEdit] != sid || !w.Resumed(protocol.ContextEdit) {
		t.Fatalf("re-attached as %s (resumed %v), want %s resumed", again[protocol.ContextEdit], w.Resumed(protocol.ContextEdit), sid)
	}
	if !hasSession(h.Host, sid) {
		t.Fatal("the session left the list during the drop")
	}
	close(release)
	r := <-done
	if r.err != nil || string(r.out) != `"ran"` {
		t.Fatalf("exec after the reconnect = %s, %v", r.out, r.err)
	}
	if n := w.Runs(protocol.ContextEdit, "exec"); n != 1 {
		t.Fatalf("exec ran %d times", n)
	}
}

// A request whose ack was lost with the socket is sent again, once, with the
// same id; the plugin recognises it and does not run it again.
func TestV2UnackedRequestIsResentOnceAndDeduplicated(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: time.Minute})
	var lost atomic.Bool
	w, ids := startWindow(t, fakeplugin.Config{
		Port:    h.port,
		LoseAck: func(action string) bool { return action == "exec" && lost.CompareAndSwap(false, true) },
		Sessions: []fakeplugin.SessionConfig{{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply {
			return fakeplugin.Reply{Payload: "once"}
		}}},
	})
	sid := ids[protocol.ContextEdit]
	out, err := h.callT(t, sid, "exec", map[string]string{"script": "x = x + 1"})
	if err != nil || string(out) != `"once"` {
		t.Fatalf("exec = %s, %v", out, err)
	}
	if !lost.Load() {
		t.Fatal("the ack was never lost: the test did not exercise the re-send")
	}
	if got := w.Received(protocol.ContextEdit); got != 2 {
		t.Fatalf("the plugin received the request %d times, want 2 (sent, then re-sent once)", got)
	}
	if n := w.Runs(protocol.ContextEdit, "exec"); n != 1 {
		t.Fatalf("exec ran %d times", n)
	}
}

// When the plugin does not come back within the grace, the caller learns
// the outcome is unknown, through a joined client too.
func TestV2GraceExpiryAnswersUnknownOutcome(t *testing.T) {
	t.Parallel()
	h := newV2Host(t, HostConfig{ResumeGrace: 200 * time.Millisecond})
	client := connectWith(t, h.port, Options{})
	if client.Role() != RoleClient {
		t.Fatal("want a client")
	}
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, NoReconnect: true, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Stall: true} }},
	}})
	sid := ids[protocol.ContextEdit]
	errc := make(chan error, 1)
	go func() {
		_, err := client.Call(context.Background(), sid, "exec", json.RawMessage(`{"script":"while true do end"}`), CallOptions{Timeout: 30 * time.Second})
		errc <- err
	}()
	eventually(t, "the exec to start", func() bool { return w.Runs(protocol.ContextEdit, "exec") == 1 })
	w.Drop()
	err := <-errc
	if codeOf(err) != protocol.CodeUnknownOutcome || !strings.Contains(err.Error(), "may or may not have run") {
		t.Fatalf("after the grace: %v (code %q), want UNKNOWN_OUTCOME", err, codeOf(err))
	}
	eventually(t, "the session to go", func() bool { return !hasSession(h.Host, sid) })
}

// Issue 13 item 6: a 4 MB script reaches a v2 plugin whole, as chunks.
func TestV2FourMegabyteScriptArrivesWhole(t *testing.T) {
	t.Parallel()
	h := newV2Host(t, HostConfig{}) // real sockets: 4 MB crosses the kernel faster than a pipe
	_, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(_ string, payload json.RawMessage) fakeplugin.Reply {
			var req struct {
				Script string `json:"script"`
			}
			if err := json.Unmarshal(payload, &req); err != nil {
				return fakeplugin.Reply{Err: protocol.Errorf(protocol.CodeInvalidPayload, "%v", err)}
			}
			sum := sha256.Sum256([]byte(req.Script))
			return fakeplugin.Reply{Payload: map[string]any{"bytes": len(req.Script), "sha256": hex.EncodeToString(sum[:])}}
		}},
	}})
	// Quotes, backslashes and non-ASCII text: the escaping that makes chunk
	// frames larger than their data.
	line := "print(\"héllo \\\\ wörld\") -- 🎮 padding padding padding\n"
	script := strings.Repeat(line, 4<<20/len(line)+1)
	out, err := h.callT(t, ids[protocol.ContextEdit], "exec", map[string]string{"script": script})
	if err != nil {
		t.Fatalf("4 MB exec: %v", err)
	}
	var got struct {
		Bytes  int    `json:"bytes"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(script))
	if got.Bytes != len(script) || got.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("plugin got %d bytes (%s), sent %d", got.Bytes, got.SHA256, len(script))
	}
}

// A request over MaxRequestPayloadBytes, which no plugin accepts, is
// refused up front: nothing is sent and the session stays.
func TestV2OversizedRequestRefusedUpFront(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	p, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{{Context: protocol.ContextEdit}}})
	sid := ids[protocol.ContextEdit]
	_, err := h.callT(t, sid, "exec", map[string]string{"script": strings.Repeat("x", protocol.MaxRequestPayloadBytes)})
	if codeOf(err) != protocol.CodePayloadTooLarge || !strings.Contains(err.Error(), strconv.Itoa(protocol.MaxRequestPayloadBytes)) {
		t.Fatalf("a request over %d bytes: %v", protocol.MaxRequestPayloadBytes, err)
	}
	if len(p.Requests()) != 0 {
		t.Fatal("the oversized request was sent")
	}
	if _, err := h.callT(t, sid, "state", nil); err != nil {
		t.Fatalf("session after the refusal: %v", err)
	}
}

// Per-session liveness: a frozen server DataModel is detected while the
// edit DataModel keeps the socket alive.
func TestV2FrozenSessionIsDroppedWhileTheSocketLives(t *testing.T) {
	// Not parallel: a heartbeat of tens of milliseconds is a wall-clock
	// contract a busy neighbour would break.
	h := newV2Host(t, HostConfig{Heartbeat: 40 * time.Millisecond, ResumeGrace: 100 * time.Millisecond})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit},
		{Context: protocol.ContextServer, State: protocol.StateServer, Frozen: true},
	}})
	server, edit := ids[protocol.ContextServer], ids[protocol.ContextEdit]
	eventually(t, "the frozen session to go", func() bool { return !hasSession(h.Host, server) })
	if !hasSession(h.Host, edit) {
		t.Fatal("the live edit session went too")
	}
	var told bool
	for _, g := range w.Goodbyes() {
		told = told || g.SessionID == server
	}
	if !told {
		t.Fatalf("no in-band goodbye for the frozen session: %+v", w.Goodbyes())
	}
	if w.Sockets() != 1 {
		t.Fatalf("the socket was replaced (%d sockets)", w.Sockets())
	}
	if _, err := h.callT(t, edit, "state", nil); err != nil {
		t.Fatalf("edit session: %v", err)
	}
}

// Make-before-break refresh (issue 13 item 3): sessions move to a new
// socket with their secrets; a call in flight completes; ids never change.
func TestV2RefreshMovesSessionsWithoutLosingCalls(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: time.Minute})
	release := make(chan struct{})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply {
			<-release
			return fakeplugin.Reply{Payload: "done"}
		}},
		{Context: protocol.ContextServer, State: protocol.StateServer},
	}})
	done := make(chan error, 1)
	go func() {
		out, err := h.callT(t, ids[protocol.ContextEdit], "exec", nil)
		if err == nil && string(out) != `"done"` {
			err = errors.New("answer " + string(out))
		}
		done <- err
	}()
	eventually(t, "the exec to start", func() bool { return w.Runs(protocol.ContextEdit, "exec") == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Sockets() != 2 || len(w.Replaced()) != 2 {
		t.Fatalf("sockets %d, replaced %v", w.Sockets(), w.Replaced())
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("exec across the refresh: %v", err)
	}
	for ctx, sid := range ids {
		if !hasSession(h.Host, sid) {
			t.Fatalf("%s session %s gone after the refresh", ctx, sid)
		}
		if _, err := h.callT(t, sid, "state", nil); err != nil {
			t.Fatalf("%s after the refresh: %v", ctx, err)
		}
	}
	if n := w.Runs(protocol.ContextEdit, "exec"); n != 1 {
		t.Fatalf("exec ran %d times", n)
	}
	if len(h.Sessions()) != 2 {
		t.Fatalf("sessions after refresh: %+v", h.Sessions())
	}
}

// A call made while its session is held (socket gone, plugin not back yet)
// waits, and is sent when the plugin re-attaches.
func TestV2CallDuringTheGraceIsSentAfterTheResume(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: time.Minute})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, RetryDelays: []time.Duration{200 * time.Millisecond},
		Sessions: []fakeplugin.SessionConfig{{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply {
			return fakeplugin.Reply{Payload: "late but fine"}
		}}}})
	sid := ids[protocol.ContextEdit]
	w.Drop()
	out, err := h.callT(t, sid, "state", nil)
	if err != nil || string(out) != `"late but fine"` {
		t.Fatalf("call during the grace = %s, %v", out, err)
	}
	if n := w.Runs(protocol.ContextEdit, "state"); n != 1 {
		t.Fatalf("ran %d times", n)
	}
}

// Session-scoped frames on a v2 socket must name a session the socket
// carries; anything else draws a notice and the socket stays open.
func TestV2SessionFramesNeedTheirSession(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	r := rawWindow(t, h.port, "W")
	r.send(protocol.Attach{Ref: "edit", InstanceID: "W", Context: protocol.ContextEdit})
	mine := r.expect(protocol.TypeAttached).(protocol.Attached).SessionID

	startWindow(t, fakeplugin.Config{Port: h.port, InstanceID: "other", Sessions: []fakeplugin.SessionConfig{{Context: protocol.ContextEdit}}})
	var theirs string
	for _, s := range h.Sessions() {
		if s.InstanceID == "other" {
			theirs = s.SessionID
		}
	}
	tests := []struct {
		name string
		m    protocol.Message
		code protocol.Code
	}{
		{"response without sessionId", protocol.Response{ID: "1", OK: true}, protocol.CodeMalformedFrame},
		{"event without sessionId", protocol.Event{Event: "log"}, protocol.CodeMalformedFrame},
		{"event for another socket's session", protocol.Event{SessionID: theirs, Event: "log"}, protocol.CodeSessionNotFound},
		{"response for another socket's session", protocol.Response{SessionID: theirs, ID: "1", OK: true}, protocol.CodeSessionNotFound},
		{"detach of another socket's session", protocol.Detach{SessionID: theirs}, protocol.CodeSessionNotFound},
		{"response for no request", protocol.Response{SessionID: mine, ID: "99", OK: true}, protocol.CodeUnknownRequest},
	}
	for _, tt := range tests {
		r.send(tt.m)
		n := r.expect(protocol.TypeError).(protocol.ErrorNotice)
		if n.Code != tt.code {
			t.Errorf("%s: notice %s (%s), want %s", tt.name, n.Code, n.Message, tt.code)
		}
	}
	r.send(protocol.Ack{SessionID: mine, ID: "12345"}) // ignored silently
	r.send(protocol.Ping{SessionID: mine, T: 9})
	if p := r.expect(protocol.TypePong).(protocol.Pong); p.SessionID != mine || p.T != 9 {
		t.Fatalf("session pong: %+v", p)
	}
	if !hasSession(h.Host, theirs) || !hasSession(h.Host, mine) {
		t.Fatal("a session went away")
	}
}

// A host that stops does not keep callers waiting out the resume grace of a
// session whose socket had dropped: nothing is held once the host goes.
func TestV2ShutdownEndsHeldSessions(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: time.Hour})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, NoReconnect: true, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Stall: true} }},
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := h.callT(t, ids[protocol.ContextEdit], "exec", nil)
		errc <- err
	}()
	eventually(t, "the exec to start", func() bool { return w.Runs(protocol.ContextEdit, "exec") == 1 })
	w.Drop()
	eventually(t, "the session to be held", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		s := h.plugins[ids[protocol.ContextEdit]]
		return s != nil && s.sock == nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; codeOf(err) != protocol.CodeUnknownOutcome {
		t.Fatalf("held call at shutdown: %v, want UNKNOWN_OUTCOME", err)
	}
}

// Calls keep flowing, each run exactly once, while windows' sockets drop and
// refresh under them (the race detector watches the session moves).
func TestV2CallsSurviveDropsAndRefreshesUnderLoad(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: time.Minute})
	type win struct {
		w   *fakeplugin.Plugin
		ids map[protocol.Context]string
	}
	var runs atomic.Int64
	handler := func(_ string, payload json.RawMessage) fakeplugin.Reply {
		runs.Add(1)
		return fakeplugin.Reply{Payload: payload, Delay: 2 * time.Millisecond}
	}
	var wins []win
	for i := range 3 {
		w, ids := startWindow(t, fakeplugin.Config{Port: h.port, InstanceID: "load-" + string(rune('a'+i)), Sessions: []fakeplugin.SessionConfig{
			{Context: protocol.ContextEdit, Handler: handler},
			{Context: protocol.ContextServer, Handler: handler},
		}})
		wins = append(wins, win{w, ids})
	}
	const perSession = 40
	errc := make(chan error, len(wins)*2*perSession)
	stop := make(chan struct{})
	disrupted := make(chan struct{})
	go func() {
		defer close(disrupted)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(15 * time.Millisecond):
			}
			w := wins[i%len(wins)].w
			if i%2 == 0 {
				w.Drop()
			} else {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_ = w.Refresh(ctx) // may race a drop; the calls must not care
				cancel()
			}
		}
	}()
	var calls atomic.Int64
	for _, wn := range wins {
		for _, sid := range wn.ids {
			go func() {
				for i := range perSession {
					want := `{"sid":"` + sid + `","i":` + strconv.Itoa(i) + `}`
					out, err := h.call(context.Background(), sid, "echo", json.RawMessage(want), 30*time.Second, nil)
					if err == nil && string(out) != want {
						err = errors.New("answer " + string(out) + ", want " + want)
					}
					calls.Add(1)
					errc <- err
				}
			}()
		}
	}
	for range len(wins) * 2 * perSession {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	<-disrupted
	if n := runs.Load(); n != calls.Load() {
		t.Fatalf("%d calls ran %d times", calls.Load(), n)
	}
	sockets := 0
	for _, wn := range wins {
		sockets += wn.w.Sockets()
	}
	if sockets <= len(wins) {
		t.Fatalf("no socket was ever replaced (%d sockets): the test disrupted nothing", sockets)
	}
	t.Logf("%d calls over %d sockets for %d windows", calls.Load(), sockets, len(wins))
}

// An attach without capabilities lists an empty list, never null: clients
// (the MCP output schema) read "capabilities" as an array.
func TestAttachWithoutCapabilitiesListsEmpty(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	r := rawWindow(t, h.port, "W")
	at := r.attach(protocol.Attach{Ref: "edit", InstanceID: "W", Context: protocol.ContextEdit})
	for _, s := range h.Sessions() {
		if s.SessionID != at.SessionID {
			continue
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"capabilities":[]`) {
			t.Fatalf("session without capabilities encodes as %s", data)
		}
		return
	}
	t.Fatalf("session %s not listed", at.SessionID)
}

// A chunked reply cut short by a socket drop is sent again whole after the
// resume (PROTOCOL.md 12.7 step 4: a finished request's response is sent
// again, chunked again); the host starts that reply over instead of failing
// the call because chunk 0 arrived after chunk 1.
func TestV2ChunkedReplyResentWholeAfterResume(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	r := rawWindow(t, h.port, "chunky")
	at := r.attach(goodAttach("chunky", protocol.ContextEdit))
	sid := at.SessionID

	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := h.call(ctx, sid, "exec", json.RawMessage(`{}`), 30*time.Second, nil)
		done <- result{out, err}
	}()
	req := r.expect(protocol.TypeRequest).(protocol.Request)
	r.send(protocol.Ack{SessionID: sid, ID: req.ID})
	payload := `{"output":"` + strings.Repeat("x", 40) + `"}`
	parts := protocol.Split([]byte(payload), 16)
	for seq, data := range parts[:2] {
		r.send(protocol.Chunk{SessionID: sid, ID: req.ID, Seq: seq, Data: data})
	}
	_ = r.c.CloseNow() // the socket drops mid-reply
	// The plugin reconnects after the drop: the host has read what the old
	// socket carried and holds the session.
	kit.WaitFor(t, 30*time.Second, "the host to hold the session", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		s := h.plugins[sid]
		return s != nil && s.sock == nil
	})

	again := rawWindow(t, h.port, "chunky")
	a := goodAttach("chunky", protocol.ContextEdit)
	a.PreviousSessionID, a.ResumeSecret = sid, at.ResumeSecret
	resumed := again.attach(a)
	if !resumed.Resumed || len(resumed.Awaiting) != 1 || resumed.Awaiting[0] != req.ID {
		t.Fatalf("resume: %+v, want request %s awaited", resumed, req.ID)
	}
	for seq, data := range parts {
		again.send(protocol.Chunk{SessionID: sid, ID: req.ID, Seq: seq, Data: data})
	}
	again.send(protocol.Response{SessionID: sid, ID: req.ID, OK: true, Chunks: len(parts)})
	got := <-done
	if got.err != nil || string(got.out) != payload {
		t.Fatalf("call after the resumed reply: %s, %v; want %s", got.out, got.err, payload)
	}
	if held := h.reassembly.Used(); held != 0 {
		t.Fatalf("%d bytes of reassembly budget still held after the call", held)
	}
	again.leave()
}

// A log event the plugin wrote on its old socket just before a
// make-before-break move reaches subscribers (PROTOCOL.md 12.6): it used to
// be dropped as "not attached to this socket", losing a line of logs
// --follow at every socket renewal. A state event there is still refused:
// the attach on the new socket carries the state.
func TestV2EventWrittenBeforeAMoveIsKept(t *testing.T) {
	h := newV2Host(t, HostConfig{})
	a := rawWindow(t, h.port, "mover")
	at := a.attach(goodAttach("mover", protocol.ContextEdit))
	sid := at.SessionID
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := h.hub.watchEvents(ctx, sid, nil, nil)

	b := rawWindow(t, h.port, "mover")
	move := goodAttach("mover", protocol.ContextEdit)
	move.PreviousSessionID, move.ResumeSecret = sid, at.ResumeSecret
	if got := b.attach(move); got.SessionID != sid || !got.Resumed {
		t.Fatalf("move: %+v", got)
	}
	a.expect(protocol.TypeReplaced)

	a.send(protocol.Event{SessionID: sid, Event: "log", Seq: 7, Payload: json.RawMessage(`{"level":"Print","body":"late"}`)})
	if ev := kit.Recv(t, events, 30*time.Second, "the log event written on the old socket"); ev.Seq != 7 || ev.SessionID != sid {
		t.Fatalf("event %+v", ev)
	}
	a.send(protocol.Event{SessionID: sid, Event: "state", Payload: json.RawMessage(`{"state":"Play"}`)})
	if n := a.expect(protocol.TypeError).(protocol.ErrorNotice); n.Code != protocol.CodeSessionNotFound {
		t.Fatalf("a state event on the old socket: %+v, want SESSION_NOT_FOUND", n)
	}
	b.leave()
}
