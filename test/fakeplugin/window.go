package fakeplugin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// SessionConfig describes one DataModel of a fake v2 window.
type SessionConfig struct {
	Context      protocol.Context
	State        protocol.State
	PlaceName    string
	Capabilities []string
	// Handler answers requests; nil answers every action with {"action": name}.
	Handler Handler
	// Frozen makes the DataModel send nothing for its session once attached:
	// no pongs, no answers (a server DataModel stuck in non-yielding work
	// while the edit DataModel keeps the socket alive).
	Frozen bool
}

// WindowConfig describes a fake Studio window speaking plugin protocol v2:
// one socket carrying the sessions of its DataModels (PROTOCOL.md 12).
type WindowConfig struct {
	Port          int
	InstanceID    string
	PluginVersion string
	Sessions      []SessionConfig
	// RetryDelays are the waits between reconnection attempts; the last one
	// repeats. Default: 250ms, 500ms, 1s, 2s.
	RetryDelays []time.Duration
	// NoReconnect stops the window after its first socket ends.
	NoReconnect bool
	// LoseAck, when it returns true for a request, makes the window drop its
	// socket right after recording the request and before acknowledging it
	// (the ack lost with the socket). It is asked once per request id.
	LoseAck func(action string) bool
}

// Window is a running fake v2 window.
type Window struct {
	runner
	cfg WindowConfig
	wg  sync.WaitGroup // sockets served by Refresh

	mu       sync.Mutex
	conn     *websocket.Conn
	connDone chan struct{} // closed when a socket opened by Refresh ends
	sessions []*winSession
	attached chan struct{} // closed and replaced whenever an attached arrives
	sockets  int           // sockets welcomed
	lastErr  error

	replaced record[string] // session ids the host said were replaced
	goodbyes record[protocol.Goodbye]
	notices  record[protocol.ErrorNotice]
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

// StartWindow runs a v2 window in the background until Close.
func StartWindow(cfg WindowConfig) *Window {
	if cfg.PluginVersion == "" {
		cfg.PluginVersion = "fake"
	}
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = defaultRetryDelays
	}
	w := &Window{cfg: cfg, attached: make(chan struct{})}
	for _, sc := range cfg.Sessions {
		if sc.State == "" {
			sc.State = protocol.StateEdit
		}
		w.sessions = append(w.sessions, &winSession{cfg: sc, ref: string(sc.Context), runs: map[string]*winRun{}, ran: map[string]int{}})
	}
	w.start(w.loop)
	return w
}

// WaitAttached waits until every session that is not frozen out has been
// attached on the current socket at least n times in total, and returns
// the session ids by context.
func (w *Window) WaitAttached(ctx context.Context, n int) (map[protocol.Context]string, error) {
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
			return nil, fmt.Errorf("fake window %s: sessions not attached %d times: %w (last error: %v)", w.cfg.InstanceID, n, ctx.Err(), err)
		}
	}
}

// Resumed reports whether the session of context c was resumed by its
// latest attached.
func (w *Window) Resumed(c protocol.Context) bool { return read(&w.mu, &w.session(c).resumed) }

// Secret is the resume secret of the session of context c.
func (w *Window) Secret(c protocol.Context) string { return read(&w.mu, &w.session(c).secret) }

// Runs counts the handler executions of action in the session of context c.
func (w *Window) Runs(c protocol.Context, action string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.session(c).ran[action]
}

// Received counts the request frames the session of context c received,
// re-sent duplicates included.
func (w *Window) Received(c protocol.Context) int { return read(&w.mu, &w.session(c).received) }

// Sockets counts the sockets the host welcomed.
func (w *Window) Sockets() int { return read(&w.mu, &w.sockets) }

// Replaced lists the session ids the host said another connection took.
func (w *Window) Replaced() []string { return w.replaced.all() }

// Goodbyes lists the goodbyes the host sent.
func (w *Window) Goodbyes() []protocol.Goodbye { return w.goodbyes.all() }

// Notices lists the error notices the host sent.
func (w *Window) Notices() []protocol.ErrorNotice { return w.notices.all() }

// Drop closes the socket abruptly, as Studio ending a stream would; the
// window keeps its sessions and running work and reconnects.
func (w *Window) Drop() {
	if c := read(&w.mu, &w.conn); c != nil {
		_ = c.CloseNow()
	}
}

// Refresh moves every session to a new socket before closing the old one
// (make-before-break, PROTOCOL.md 12.12). It returns once the sessions are
// attached on the new socket.
func (w *Window) Refresh(ctx context.Context) error {
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

func (w *Window) minAttaches() int {
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
// fixed by StartWindow, so finding one needs no lock; its fields do.
func (w *Window) session(c protocol.Context) *winSession {
	for _, s := range w.sessions {
		if s.cfg.Context == c {
			return s
		}
	}
	panic("fakeplugin: no session for context " + string(c))
}

func (w *Window) byID(id string) *winSession {
	for _, s := range w.sessions {
		if s.id == id && id != "" {
			return s
		}
	}
	return nil
}

func (w *Window) loop() {
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
		w.mu.Lock()
		w.lastErr = err
		w.mu.Unlock()
		if w.cfg.NoReconnect || !retry.wait(w.ctx, err == nil) {
			return
		}
	}
}

// dial opens a socket to the host and completes the v2 handshake.
func (w *Window) dial(ctx context.Context) (*websocket.Conn, error) {
	c, err := dialPlugin(ctx, w.cfg.Port)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// The hello doubles as a v1 hello for the edit DataModel (12.2).
	w.mu.Lock()
	edit := w.sessions[0]
	hello := protocol.Hello{
		ProtocolVersions: []int{2, 1}, PluginVersion: w.cfg.PluginVersion, InstanceID: w.cfg.InstanceID,
		Context: edit.cfg.Context, State: edit.cfg.State, PlaceName: edit.cfg.PlaceName,
		Capabilities: edit.cfg.Capabilities, PreviousSessionID: edit.id, ResumeSecret: edit.secret,
	}
	w.mu.Unlock()
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
	if !ok || welcome.ProtocolVersion != 2 {
		_ = c.CloseNow()
		return nil, fmt.Errorf("want a v2 welcome, got %#v", m)
	}
	w.mu.Lock()
	w.sockets++
	w.mu.Unlock()
	return c, nil
}

func write(ctx context.Context, c *websocket.Conn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, data)
}

// connectAndServe runs one socket: nil when it was welcomed and then ended.
func (w *Window) connectAndServe() error {
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
func (w *Window) attachAll(c *websocket.Conn) error {
	w.mu.Lock()
	var attaches []protocol.Attach
	for _, s := range w.sessions {
		if s.gone {
			continue
		}
		attaches = append(attaches, s.attach(w.cfg.InstanceID))
	}
	w.mu.Unlock()
	for _, a := range attaches {
		if err := w.sendOn(c, a); err != nil {
			return err
		}
	}
	return nil
}

func (s *winSession) attach(instanceID string) protocol.Attach {
	return protocol.Attach{
		Ref: s.ref, InstanceID: instanceID, Context: s.cfg.Context, State: s.cfg.State,
		PlaceName: s.cfg.PlaceName, Capabilities: s.cfg.Capabilities,
		PreviousSessionID: s.id, ResumeSecret: s.secret,
	}
}

// sendOn writes m on c.
func (w *Window) sendOn(c *websocket.Conn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return w.writeOn(c, data)
}

// send writes m on the current socket; with none, it is lost (as a real
// plugin's write to a closed stream is).
func (w *Window) send(m protocol.Message) {
	w.mu.Lock()
	c := w.conn
	w.mu.Unlock()
	if c != nil {
		_ = w.sendOn(c, m)
	}
}

// serve reads c until it ends.
func (w *Window) serve(c *websocket.Conn) {
	defer c.CloseNow()
	for {
		_, data, err := c.Read(w.ctx)
		if err != nil {
			w.mu.Lock()
			if w.conn == c {
				w.conn = nil
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

func (w *Window) handle(c *websocket.Conn, m protocol.Message) {
	switch m := m.(type) {
	case protocol.Ping:
		if m.SessionID == "" {
			_ = w.sendOn(c, protocol.Pong{T: m.T})
			return
		}
		w.mu.Lock()
		s := w.byID(m.SessionID)
		frozen := s == nil || s.cfg.Frozen
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
			at := s.attach(w.cfg.InstanceID)
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
func (w *Window) attachedFrame(m protocol.Attached) {
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
func (w *Window) request(c *websocket.Conn, req protocol.Request) {
	w.mu.Lock()
	s := w.byID(req.SessionID)
	if s == nil || s.cfg.Frozen {
		w.mu.Unlock()
		return
	}
	s.received++
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
	go w.run(ctx, r, sid, req, handler)
}

// run executes a request; it keeps running across socket drops and sends its
// result on whatever socket is current when it finishes.
func (w *Window) run(ctx context.Context, r *winRun, sid string, req protocol.Request, handler Handler) {
	rep := reply(handler, req)
	for _, f := range rep.progress(sid, req.ID) {
		w.send(f)
	}
	frames, ok := rep.outcome(ctx, sid, req.ID)
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
