package fakeplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// SessionConfig describes one DataModel of a fake Studio window.
type SessionConfig struct {
	Context      protocol.Context // default edit
	State        protocol.State   // default Edit
	PlaceName    string
	PlaceID      int64
	GameID       int64
	Capabilities []string
	// Handler answers requests; nil answers every action with {"action": name}.
	Handler Handler
	// Frozen makes the DataModel send nothing for its session once attached:
	// no pongs, no answers (a server DataModel stuck in non-yielding work
	// while the edit DataModel keeps the socket alive).
	Frozen bool
}

// Config describes a fake Studio window: one socket carrying the sessions
// of its DataModels (PROTOCOL.md 12).
//
// Most tests need a window with one DataModel: Context, State, PlaceName,
// PlaceID, GameID, Capabilities and Handler describe it. Sessions, when set,
// lists the DataModels instead (and those fields are ignored).
type Config struct {
	Port int
	// HTTPClient, when set, carries the window's /health polls and its
	// WebSocket (memnet.Listener.HTTPClient: a host served in memory);
	// nil means real loopback sockets.
	HTTPClient    *http.Client
	InstanceID    string
	PluginVersion string

	// Key is the pairing key (authtoken.PairingKey of the host's token) the
	// window proves it holds and checks the host's proof against; nil means
	// DefaultKey. Unpaired sends no key at all (an unpaired plugin), and
	// TrustAnyHost sends the window's proof without checking the host's (to
	// test a host's refusal of a wrong key).
	Key          []byte
	Unpaired     bool
	TrustAnyHost bool
	// Nonce, when set, draws the hello's nonce instead of the random
	// source (the recorded conversations replay with the transcript's).
	Nonce func() string

	Context      protocol.Context
	State        protocol.State
	PlaceName    string
	PlaceID      int64
	GameID       int64
	Capabilities []string
	Handler      Handler

	// Sessions are the window's DataModels, attached in this order; the
	// first is the one SessionID, WaitWelcome and SendLog speak of.
	Sessions []SessionConfig
	// RetryDelays are the waits between reconnection attempts; the last one
	// repeats. Default: 250ms, 500ms, 1s, 2s as the real plugin does.
	RetryDelays []time.Duration
	// NoReconnect stops the window after its first socket ends.
	NoReconnect bool
	// NoPong stops answering pings, the socket's and the sessions' (a
	// silent plugin, to test heartbeat eviction).
	NoPong bool
	// LoseAck, when it returns true for a request, makes the window drop its
	// socket right after recording the request and before acknowledging it
	// (the ack lost with the socket). It is asked once per request id.
	LoseAck func(action string) bool
}

// Plugin is a running fake plugin: one Studio window.
type Plugin struct {
	runner
	cfg Config
	wg  sync.WaitGroup // sockets served by Refresh

	// frozen: Freeze was called; nothing answers pings any more
	frozen atomic.Bool

	mu        sync.Mutex
	conn      *websocket.Conn
	connDone  chan struct{} // closed when a socket opened by Refresh ends
	sessions  []*winSession
	attached  chan struct{} // closed and replaced whenever an attached arrives
	welcomed  chan string   // the first session's id, after each of its attaches
	sockets   int           // sockets welcomed
	lastErr   error
	closeCode websocket.StatusCode

	replaced record[string] // session ids the host said were replaced
	goodbyes record[protocol.Goodbye]
	notices  record[protocol.ErrorNotice]
	received record[protocol.Request]
	cancels  record[string]
}

// winSession is one DataModel's session state, kept across sockets as the
// real plugin keeps it in memory.
type winSession struct {
	cfg      SessionConfig
	ref      string
	id       string
	secret   string
	resumed  bool
	attaches int
	gone     bool // replaced by someone else: never re-attached

	runs     map[string]*winRun // dedupe table by request id
	asmID    string
	asm      *protocol.Assembler
	received int            // request frames received, duplicates included
	ran      map[string]int // handler executions by action
}

type winRun struct {
	cancel context.CancelFunc
	done   bool
	resp   []protocol.Message // the chunks and response, kept for re-sending
}

// Start runs a fake plugin in the background until Close. It finds the
// host as the real plugin does, by polling /health, and reconnects after
// losing it, keeping its sessions' ids and work.
func Start(cfg Config) *Plugin {
	if cfg.PluginVersion == "" {
		cfg.PluginVersion = "fake"
	}
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = defaultRetryDelays
	}
	if cfg.Key == nil {
		cfg.Key = DefaultKey
	}
	if cfg.Unpaired {
		cfg.Key = nil
	}
	if len(cfg.Sessions) == 0 {
		cfg.Sessions = []SessionConfig{{Context: cfg.Context, State: cfg.State, PlaceName: cfg.PlaceName,
			PlaceID: cfg.PlaceID, GameID: cfg.GameID, Capabilities: cfg.Capabilities, Handler: cfg.Handler}}
	}
	w := &Plugin{cfg: cfg, attached: make(chan struct{}), welcomed: make(chan string, 16), closeCode: -1}
	for i, sc := range cfg.Sessions {
		// refs as the real plugin names its attaches: "self" for the
		// DataModel that holds the socket, "relay-N" for those it relays
		ref := "self"
		if i > 0 {
			ref = fmt.Sprintf("relay-%d", i)
		}
		if sc.Context == "" {
			sc.Context = protocol.ContextEdit
		}
		if sc.State == "" {
			sc.State = protocol.StateEdit
		}
		w.sessions = append(w.sessions, &winSession{cfg: sc, ref: ref, runs: map[string]*winRun{}, ran: map[string]int{}})
	}
	w.start(w.loop)
	return w
}

// WaitAttached waits until every session that is not frozen out has been
// attached on the current socket at least n times in total, and returns
// the session ids by context.
func (w *Plugin) WaitAttached(ctx context.Context, n int) (map[protocol.Context]string, error) {
	for {
		w.mu.Lock()
		ok := true
		ids := map[protocol.Context]string{}
		for _, s := range w.sessions {
			if s.attaches < n {
				ok = false
			}
			ids[s.cfg.Context] = s.id
		}
		ch := w.attached
		err := w.lastErr
		w.mu.Unlock()
		if ok {
			return ids, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("fake plugin %s: sessions not attached %d times: %w (last error: %v)", w.cfg.InstanceID, n, ctx.Err(), err)
		}
	}
}

// SessionID is the id of the first session ("" before its first attach).
func (w *Plugin) SessionID() string { return read(&w.mu, &w.sessions[0].id) }

// WaitWelcome waits for the next handshake, the first session's next
// attached, and returns its session id.
func (w *Plugin) WaitWelcome(ctx context.Context) (string, error) {
	select {
	case id := <-w.welcomed:
		return id, nil
	case <-ctx.Done():
		return "", fmt.Errorf("fake plugin %s: not attached: %w (last error: %v)", w.cfg.InstanceID, ctx.Err(), read(&w.mu, &w.lastErr))
	}
}

// Resumed reports whether the session of context c was resumed by its
// latest attached.
func (w *Plugin) Resumed(c protocol.Context) bool { return read(&w.mu, &w.session(c).resumed) }

// Secret is the resume secret of the session of context c.
func (w *Plugin) Secret(c protocol.Context) string { return read(&w.mu, &w.session(c).secret) }

// Runs counts the handler executions of action in the session of context c.
func (w *Plugin) Runs(c protocol.Context, action string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.session(c).ran[action]
}

// Received counts the request frames the session of context c received,
// re-sent duplicates included.
func (w *Plugin) Received(c protocol.Context) int { return read(&w.mu, &w.session(c).received) }

// Sockets counts the sockets the host welcomed.
func (w *Plugin) Sockets() int { return read(&w.mu, &w.sockets) }

// Replaced lists the session ids the host said another connection took.
func (w *Plugin) Replaced() []string { return w.replaced.all() }

// Requests lists the request frames received, in every session, re-sent
// duplicates included.
func (w *Plugin) Requests() []protocol.Request { return w.received.all() }

// Cancels lists the request ids the host cancelled.
func (w *Plugin) Cancels() []string { return w.cancels.all() }

// Freeze makes the whole window fall silent while its socket stays open,
// as Studio does while a script that never yields holds its Luau thread:
// no pongs, the socket's or any session's, from now on.
func (w *Plugin) Freeze() { w.frozen.Store(true) }

// CloseStatus is the WebSocket close status that ended the latest socket,
// or -1 while it is open or when it ended without a close frame.
func (w *Plugin) CloseStatus() websocket.StatusCode { return read(&w.mu, &w.closeCode) }

// SendRaw writes bytes as one text frame on the current socket.
func (w *Plugin) SendRaw(data []byte) error {
	c := read(&w.mu, &w.conn)
	if c == nil {
		return errNotConnected
	}
	return w.writeOn(c, data)
}

// Send writes one protocol message on the current socket.
func (w *Plugin) Send(m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return w.SendRaw(data)
}

// SendLog streams one captured output line of the first session (level
// Print, Info, Warning or Error) as live "log" event number seq, in the
// payload the plugin sends for every line printed to Output.
func (w *Plugin) SendLog(seq int64, level, body string) error {
	payload, err := json.Marshal(logLine{Level: level, Body: body, Timestamp: float64(time.Now().UnixMilli())}) // milliseconds, as the plugin stamps (protocol/ACTIONS.md)
	if err != nil {
		return err
	}
	return w.Send(protocol.Event{SessionID: w.SessionID(), Event: "log", Seq: seq, Payload: payload})
}

// logLine is a "log" event's payload.
type logLine struct {
	Level     string  `json:"level"`
	Body      string  `json:"body"`
	Timestamp float64 `json:"timestamp"`
}

// Goodbyes lists the goodbyes the host sent.
func (w *Plugin) Goodbyes() []protocol.Goodbye { return w.goodbyes.all() }

// Notices lists the error notices the host sent.
func (w *Plugin) Notices() []protocol.ErrorNotice { return w.notices.all() }

// Close stops the plugin as closing the Studio window does: it says
// goodbye on its socket, so the host ends its sessions at once, closes it,
// and cancels the work it was running. (Drop is a crash instead.)
func (w *Plugin) Close() {
	if c := read(&w.mu, &w.conn); c != nil {
		if data, err := protocol.Encode(protocol.Goodbye{Reason: "plugin closing"}); err == nil {
			_ = w.writeOn(c, data) // a socket already gone has nothing to end
		}
	}
	w.runner.Close()
}

// Drop closes the socket abruptly, as Studio ending a stream would; the
// window keeps its sessions and running work and reconnects.
func (w *Plugin) Drop() {
	if c := read(&w.mu, &w.conn); c != nil {
		_ = c.CloseNow()
	}
}

// Refresh moves every session to a new socket before closing the old one
// (make-before-break, PROTOCOL.md 12.12). It returns once the sessions are
// attached on the new socket.
func (w *Plugin) Refresh(ctx context.Context) error {
	old := read(&w.mu, &w.conn)
	if old == nil {
		return errNotConnected
	}
	n := w.minAttaches() + 1
	replacedBefore := w.replaced.len()
	w.mu.Lock()
	moving := 0
	for _, s := range w.sessions {
		if !s.gone {
			moving++
		}
	}
	w.mu.Unlock()
	c, err := w.dial(ctx)
	if err != nil {
		return err
	}
	// From here the new socket is current: frames go there and the old
	// socket's reader ends quietly.
	done := make(chan struct{})
	w.mu.Lock()
	w.conn, w.connDone = c, done
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(done)
		w.serve(c)
	}()
	_ = w.attachAll(c)
	if _, err := w.WaitAttached(ctx, n); err != nil {
		return err
	}
	// Let the old socket hear that its sessions moved before closing it.
	for {
		if w.replaced.len()-replacedBefore >= moving {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("old socket not told of the move: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	data, _ := protocol.Encode(protocol.Goodbye{Reason: "socket refresh"})
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_ = old.Write(wctx, websocket.MessageText, data)
	cancel()
	return old.Close(websocket.StatusNormalClosure, "socket refresh")
}

func (w *Plugin) minAttaches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := -1
	for _, s := range w.sessions {
		if n < 0 || s.attaches < n {
			n = s.attaches
		}
	}
	return n
}

// session is the session of context c. The sessions and their configs are
// fixed by Start, so finding one needs no lock; its fields do.
func (w *Plugin) session(c protocol.Context) *winSession {
	for _, s := range w.sessions {
		if s.cfg.Context == c {
			return s
		}
	}
	panic("fakeplugin: no session for context " + string(c)) // a test's mistake
}

func (w *Plugin) byID(id string) *winSession {
	for _, s := range w.sessions {
		if s.id == id && id != "" {
			return s
		}
	}
	return nil
}

func (w *Plugin) loop() {
	defer w.wg.Wait()
	defer func() {
		w.mu.Lock()
		for _, s := range w.sessions {
			for _, r := range s.runs {
				r.cancel()
			}
		}
		w.mu.Unlock()
	}()
	retry := backoff{delays: w.cfg.RetryDelays}
	for {
		err := w.connectAndServe()
		// A refresh may have moved the window to a newer socket: serve
		// until that one ends too.
		for {
			w.mu.Lock()
			c, done := w.conn, w.connDone
			w.mu.Unlock()
			if c == nil || done == nil {
				break
			}
			select {
			case <-done:
			case <-w.ctx.Done():
			}
			if w.ctx.Err() != nil {
				break
			}
		}
		if err != nil { // a socket that ended cleanly keeps the host's last reject
			w.mu.Lock()
			w.lastErr = err
			w.mu.Unlock()
		}
		if w.cfg.NoReconnect || !retry.wait(w.ctx, err == nil) {
			return
		}
	}
}

// dial opens a socket to the host and completes the handshake.
func (w *Plugin) dial(ctx context.Context) (*websocket.Conn, error) {
	c, err := dialPlugin(ctx, w.cfg.Port, w.cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.closeCode = -1
	w.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nonce := protocol.NewNonce()
	if w.cfg.Nonce != nil {
		nonce = w.cfg.Nonce()
	}
	hello := protocol.Hello{ProtocolVersions: protocol.PluginSupportedVersions, PluginVersion: w.cfg.PluginVersion, InstanceID: w.cfg.InstanceID, Nonce: nonce}
	if err := write(dctx, c, hello); err != nil {
		_ = c.CloseNow()
		return nil, fmt.Errorf("hello: %w", err)
	}
	_, data, err := c.Read(dctx)
	if err != nil {
		_ = c.CloseNow()
		return nil, fmt.Errorf("welcome: %w", err)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		_ = c.CloseNow()
		return nil, fmt.Errorf("welcome: %w", err)
	}
	welcome, ok := m.(protocol.Welcome)
	if !ok || welcome.ProtocolVersion != protocol.PluginProtocolVersion {
		_ = c.CloseNow()
		return nil, fmt.Errorf("want a welcome, got %#v", m)
	}
	if err := w.pair(dctx, c, welcome, nonce); err != nil {
		_ = c.CloseNow()
		return nil, err
	}
	w.mu.Lock()
	w.sockets++
	w.mu.Unlock()
	return c, nil
}

// pair checks the host's proof in the welcome and sends the window's own
// (protocol/pairing.go); without a key it sends an empty proof, as an
// unpaired plugin does, and the host's reject arrives next.
func (w *Plugin) pair(ctx context.Context, c *websocket.Conn, welcome protocol.Welcome, nonce string) error {
	var proof string
	if key := w.cfg.Key; key != nil {
		if !w.cfg.TrustAnyHost && !protocol.ProofMatches(protocol.HostProof(key, welcome.Nonce, nonce, w.cfg.InstanceID), welcome.Proof) {
			return errors.New("the host could not prove it holds the pairing key: refusing to act for it")
		}
		proof = protocol.PluginProof(key, welcome.Nonce, nonce, w.cfg.InstanceID)
	}
	if err := write(ctx, c, protocol.Pair{Proof: proof}); err != nil {
		return fmt.Errorf("pair: %w", err)
	}
	return nil
}

// LastErr is the last error the window met: a failed dial or handshake, or
// the host's last reject.
func (w *Plugin) LastErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastErr
}

func write(ctx context.Context, c *websocket.Conn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, data)
}

// connectAndServe runs one socket: nil when it was welcomed and then ended.
func (w *Plugin) connectAndServe() error {
	c, err := w.dial(w.ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.conn, w.connDone = c, nil
	w.mu.Unlock()
	if err := w.attachAll(c); err != nil {
		_ = c.CloseNow()
		return nil
	}
	w.serve(c)
	return nil
}

// attachAll attaches every session that is not gone on c, with its
// previous id and secret.
func (w *Plugin) attachAll(c *websocket.Conn) error {
	w.mu.Lock()
	var attaches []protocol.Attach
	for _, s := range w.sessions {
		if s.gone {
			continue
		}
		attaches = append(attaches, s.attach(w.cfg.InstanceID, w.cfg.PluginVersion))
	}
	w.mu.Unlock()
	for _, a := range attaches {
		if err := w.sendOn(c, a); err != nil {
			return err
		}
	}
	return nil
}

func (s *winSession) attach(instanceID, pluginVersion string) protocol.Attach {
	return protocol.Attach{
		Ref: s.ref, InstanceID: instanceID, Context: s.cfg.Context, State: s.cfg.State, PluginVersion: pluginVersion,
		PlaceName: s.cfg.PlaceName, PlaceID: s.cfg.PlaceID, GameID: s.cfg.GameID, Capabilities: s.cfg.Capabilities,
		PreviousSessionID: s.id, ResumeSecret: s.secret,
	}
}

// sendOn writes m on c.
func (w *Plugin) sendOn(c *websocket.Conn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return w.writeOn(c, data)
}

// send writes m on the current socket; with none, it is lost (as a real
// plugin's write to a closed stream is).
func (w *Plugin) send(m protocol.Message) {
	w.mu.Lock()
	c := w.conn
	w.mu.Unlock()
	if c != nil {
		_ = w.sendOn(c, m)
	}
}

// serve reads c until it ends.
func (w *Plugin) serve(c *websocket.Conn) {
	defer c.CloseNow()
	for {
		_, data, err := c.Read(w.ctx)
		if err != nil {
			w.mu.Lock()
			if w.conn == c {
				w.conn = nil
				w.closeCode = websocket.CloseStatus(err)
			}
			w.mu.Unlock()
			return
		}
		m, err := protocol.Decode(data)
		if err != nil {
			continue
		}
		w.handle(c, m)
	}
}

func (w *Plugin) handle(c *websocket.Conn, m protocol.Message) {
	switch m := m.(type) {
	case protocol.Ping:
		if m.SessionID == "" {
			if !w.cfg.NoPong && !w.frozen.Load() {
				_ = w.sendOn(c, protocol.Pong{T: m.T})
			}
			return
		}
		w.mu.Lock()
		s := w.byID(m.SessionID)
		frozen := s == nil || s.cfg.Frozen || w.cfg.NoPong || w.frozen.Load()
		w.mu.Unlock()
		if !frozen {
			_ = w.sendOn(c, protocol.Pong{SessionID: m.SessionID, T: m.T})
		}
	case protocol.Attached:
		w.attachedFrame(m)
	case protocol.Reject:
		w.mu.Lock()
		w.lastErr = fmt.Errorf("rejected %s: %s: %s", m.Ref, m.Code, m.Message)
		w.mu.Unlock()
	case protocol.Replaced:
		w.replaced.add(m.SessionID)
	case protocol.Goodbye:
		w.goodbyes.add(m)
		w.mu.Lock()
		s := w.byID(m.SessionID)
		var a *protocol.Attach
		if s != nil && !s.cfg.Frozen && !s.gone {
			at := s.attach(w.cfg.InstanceID, w.cfg.PluginVersion)
			a = &at
		}
		w.mu.Unlock()
		if a != nil {
			_ = w.sendOn(c, *a) // the host ended one session: attach it again
		}
	case protocol.ErrorNotice:
		w.notices.add(m)
	case protocol.Chunk:
		w.mu.Lock()
		if s := w.byID(m.SessionID); s != nil {
			if s.asmID != m.ID {
				s.asmID, s.asm = m.ID, protocol.NewAssembler(protocol.MaxRequestPayloadBytes)
			}
			if err := s.asm.Add(m); err != nil {
				s.asmID, s.asm = "", nil
			}
		}
		w.mu.Unlock()
	case protocol.Request:
		w.request(c, m)
	case protocol.Cancel:
		w.cancels.add(m.ID)
		w.mu.Lock()
		if s := w.byID(m.SessionID); s != nil {
			if r := s.runs[m.ID]; r != nil {
				r.cancel()
			}
		}
		w.mu.Unlock()
	}
}

// attachedFrame records a session's id and secret and settles what the host
// still awaits (PROTOCOL.md 12.7).
func (w *Plugin) attachedFrame(m protocol.Attached) {
	w.mu.Lock()
	var s *winSession
	for _, cand := range w.sessions {
		if cand.ref == m.Ref {
			s = cand
		}
	}
	if s == nil {
		w.mu.Unlock()
		return
	}
	s.id, s.secret, s.resumed = m.SessionID, m.ResumeSecret, m.Resumed
	s.attaches++
	if s == w.sessions[0] {
		select {
		case w.welcomed <- s.id:
		default:
		}
	}
	if !m.Resumed {
		for _, r := range s.runs {
			r.cancel()
		}
		s.runs = map[string]*winRun{}
	}
	var resend []protocol.Message
	for _, id := range m.Awaiting {
		r := s.runs[id]
		switch {
		case r == nil:
			resend = append(resend, protocol.Response{SessionID: s.id, ID: id,
				Error: protocol.Errorf(protocol.CodeUnknownOutcome, "the result of request %s is no longer available", id)})
		case r.done:
			resend = append(resend, r.resp...)
		}
	}
	close(w.attached)
	w.attached = make(chan struct{})
	w.mu.Unlock()
	for _, f := range resend {
		w.send(f)
	}
}

// request dedupes, acknowledges and runs one request.
func (w *Plugin) request(c *websocket.Conn, req protocol.Request) {
	w.mu.Lock()
	s := w.byID(req.SessionID)
	if s == nil || s.cfg.Frozen {
		w.mu.Unlock()
		return
	}
	s.received++
	w.received.add(req)
	if req.Chunks > 0 {
		var err error
		if s.asmID == req.ID && s.asm != nil {
			req.Payload, err = s.asm.Finish(req.Chunks)
		} else {
			err = protocol.Errorf(protocol.CodeMalformedFrame, "chunked request %s arrived without its chunks", req.ID)
		}
		s.asmID, s.asm = "", nil
		if err != nil {
			w.mu.Unlock()
			_ = w.sendOn(c, protocol.Ack{SessionID: s.id, ID: req.ID})
			var perr *protocol.Error
			errors.As(err, &perr)
			_ = w.sendOn(c, protocol.Response{SessionID: s.id, ID: req.ID, Error: perr})
			return
		}
	}
	if r := s.runs[req.ID]; r != nil {
		// Seen before: never run twice. Acknowledge again; a finished one
		// answers again from its kept result.
		resend := append([]protocol.Message(nil), r.resp...)
		done := r.done
		w.mu.Unlock()
		_ = w.sendOn(c, protocol.Ack{SessionID: s.id, ID: req.ID})
		if done {
			for _, f := range resend {
				w.send(f)
			}
		}
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	r := &winRun{cancel: cancel}
	s.runs[req.ID] = r
	s.ran[req.Action]++
	handler := s.cfg.Handler
	sid := s.id
	w.mu.Unlock()

	if w.cfg.LoseAck != nil && w.cfg.LoseAck(req.Action) {
		_ = c.CloseNow() // the ack is lost with the socket; the work still runs
	} else {
		_ = w.sendOn(c, protocol.Ack{SessionID: sid, ID: req.ID})
	}
	go w.run(ctx, c, r, sid, req, handler)
}

// run executes a request; it keeps running across socket drops and sends its
// result on whatever socket is current when it finishes. A reply that drops
// the socket drops c, the one the request came on.
func (w *Plugin) run(ctx context.Context, c *websocket.Conn, r *winRun, sid string, req protocol.Request, handler Handler) {
	rep := reply(handler, req)
	for _, f := range rep.progress(sid, req.ID) {
		w.send(f)
	}
	if rep.Drop {
		// The work dies with the socket (as in a Studio crash): after the
		// resume the host's wait for it is answered UNKNOWN_OUTCOME.
		w.mu.Lock()
		if s := w.byID(sid); s != nil && s.runs[req.ID] == r {
			delete(s.runs, req.ID)
		}
		w.mu.Unlock()
		_ = c.CloseNow()
		return
	}
	if rep.Raw != nil {
		_ = w.SendRaw(rep.Raw)
		return
	}
	frames, ok := rep.outcome(ctx, req.Action, sid, req.ID)
	if !ok {
		return
	}
	w.mu.Lock()
	r.done, r.resp = true, frames
	w.mu.Unlock()
	for _, f := range frames {
		w.send(f)
	}
}
