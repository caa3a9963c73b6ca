package fakeplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Config describes one fake plugin session.
type Config struct {
	Port          int
	InstanceID    string
	Context       protocol.Context
	State         protocol.State
	PlaceName     string
	PlaceID       int64
	GameID        int64
	PluginVersion string
	Capabilities  []string
	// Versions overrides the offered protocol versions (default [1]: this
	// fake speaks plugin protocol v1; StartWindow runs a v2 window).
	Versions []int
	// NoSecret leaves the resume secret out of reconnecting hellos (a
	// plugin from before resume secrets existed).
	NoSecret bool
	// Handler answers requests; nil answers every action with {"action": name}.
	Handler Handler
	// NoReconnect stops the plugin after its first connection ends.
	NoReconnect bool
	// RetryDelays are the waits between reconnection attempts; the last one
	// repeats. Default: 250ms, 500ms, 1s, 2s as the real plugin does.
	RetryDelays []time.Duration
	// NoPong stops answering pings (to test heartbeat eviction).
	NoPong bool
}

// Plugin is a running fake plugin.
type Plugin struct {
	runner
	cfg        Config
	sessionsCh chan string

	mu        sync.Mutex
	conn      *websocket.Conn
	sessionID string
	secret    string
	replaced  bool
	connects  int
	rejected  *protocol.Reject
	lastClose error
	closeCode websocket.StatusCode

	notices  record[protocol.ErrorNotice]
	goodbyes record[string]
	received record[protocol.Request]
	cancels  record[string]
}

// Start runs a plugin in the background until Close.
func Start(cfg Config) *Plugin {
	if cfg.Context == "" {
		cfg.Context = protocol.ContextEdit
	}
	if cfg.State == "" {
		cfg.State = protocol.StateEdit
	}
	if cfg.PluginVersion == "" {
		cfg.PluginVersion = "fake"
	}
	if cfg.Versions == nil {
		cfg.Versions = []int{1}
	}
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = defaultRetryDelays
	}
	p := &Plugin{cfg: cfg, sessionsCh: make(chan string, 16), closeCode: -1}
	p.start(p.loop)
	return p
}

// SessionID is the id the host assigned most recently ("" before welcome).
func (p *Plugin) SessionID() string { return read(&p.mu, &p.sessionID) }

// Connects counts successful handshakes.
func (p *Plugin) Connects() int { return read(&p.mu, &p.connects) }

// Welcomed returns a channel that receives the session id after every
// successful handshake.
func (p *Plugin) Welcomed() <-chan string { return p.sessionsCh }

// WaitWelcome waits for the next handshake and returns its session id.
func (p *Plugin) WaitWelcome(ctx context.Context) (string, error) {
	select {
	case id := <-p.sessionsCh:
		return id, nil
	case <-ctx.Done():
		return "", fmt.Errorf("fake plugin %s/%s: no welcome: %w (last close: %v)", p.cfg.InstanceID, p.cfg.Context, ctx.Err(), p.LastClose())
	}
}

// WasReplaced reports whether the host said another connection took this
// plugin's session over.
func (p *Plugin) WasReplaced() bool { return read(&p.mu, &p.replaced) }

// ResumeSecret is the secret of the latest welcome.
func (p *Plugin) ResumeSecret() string { return read(&p.mu, &p.secret) }

// Rejected returns the reject the host sent, if any.
func (p *Plugin) Rejected() *protocol.Reject { return read(&p.mu, &p.rejected) }

// Notices returns the error notices the host sent.
func (p *Plugin) Notices() []protocol.ErrorNotice { return p.notices.all() }

// Goodbyes returns the reasons of goodbyes received.
func (p *Plugin) Goodbyes() []string { return p.goodbyes.all() }

// Cancels returns the request ids the host cancelled.
func (p *Plugin) Cancels() []string { return p.cancels.all() }

// Requests returns the requests received so far.
func (p *Plugin) Requests() []protocol.Request { return p.received.all() }

// LastClose is the error that ended the latest connection.
func (p *Plugin) LastClose() error { return read(&p.mu, &p.lastClose) }

// CloseStatus is the WebSocket close status that ended the latest
// connection, or -1 while it is open or when it ended without a close frame.
func (p *Plugin) CloseStatus() websocket.StatusCode { return read(&p.mu, &p.closeCode) }

// SendRaw writes bytes as one text frame on the live connection.
func (p *Plugin) SendRaw(data []byte) error {
	c := read(&p.mu, &p.conn)
	if c == nil {
		return errNotConnected
	}
	return p.writeOn(c, data)
}

// Send writes one protocol message.
func (p *Plugin) Send(m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return p.SendRaw(data)
}

// SendLog streams one captured output line (level Print, Info, Warning or
// Error) as live "log" event number seq, in the payload the plugin sends
// for every line printed to Output.
func (p *Plugin) SendLog(seq int64, level, body string) error {
	payload, err := json.Marshal(logLine{Level: level, Body: body, Timestamp: float64(time.Now().UnixMilli()) / 1000})
	if err != nil {
		return err
	}
	return p.Send(protocol.Event{Event: "log", Seq: seq, Payload: payload})
}

// logLine is a "log" event's payload.
type logLine struct {
	Level     string  `json:"level"`
	Body      string  `json:"body"`
	Timestamp float64 `json:"timestamp"`
}

// Drop closes the live connection abruptly, as a crashing Studio would.
func (p *Plugin) Drop() {
	if c := read(&p.mu, &p.conn); c != nil {
		_ = c.CloseNow()
	}
}

func (p *Plugin) loop() {
	retry := backoff{delays: p.cfg.RetryDelays}
	for {
		err := p.session()
		p.mu.Lock()
		p.conn = nil
		p.lastClose = err
		replaced := p.replaced
		p.mu.Unlock()
		// After "replaced" a plugin must not come back (PROTOCOL.md 12.10).
		if p.cfg.NoReconnect || replaced || !retry.wait(p.ctx, err == nil) {
			return
		}
	}
}

// session polls /health, connects, and serves one connection. It returns nil
// when a welcomed connection ended, an error when it never got that far.
func (p *Plugin) session() error {
	c, err := dialPlugin(p.ctx, p.cfg.Port)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.conn = c
	p.closeCode = -1
	prev, secret := p.sessionID, p.secret
	p.mu.Unlock()
	if p.cfg.NoSecret {
		secret = ""
	}
	defer c.CloseNow()

	err = p.Send(protocol.Hello{
		ProtocolVersions: p.cfg.Versions, PluginVersion: p.cfg.PluginVersion,
		InstanceID: p.cfg.InstanceID, Context: p.cfg.Context, PlaceName: p.cfg.PlaceName,
		PlaceID: p.cfg.PlaceID, GameID: p.cfg.GameID, State: p.cfg.State,
		Capabilities: p.cfg.Capabilities, PreviousSessionID: prev, ResumeSecret: secret,
	})
	if err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	welcomed := false
	inflight := map[string]context.CancelFunc{}
	var wg sync.WaitGroup
	defer func() {
		for _, cancel := range inflight {
			cancel()
		}
		wg.Wait()
	}()
	for {
		_, data, err := c.Read(p.ctx)
		if err != nil {
			p.mu.Lock()
			p.closeCode = websocket.CloseStatus(err)
			p.mu.Unlock()
			if welcomed {
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
		m, err := protocol.Decode(data)
		if err != nil {
			continue
		}
		switch m := m.(type) {
		case protocol.Welcome:
			welcomed = true
			p.mu.Lock()
			p.sessionID = m.SessionID
			p.secret = m.ResumeSecret
			p.connects++
			p.mu.Unlock()
			select {
			case p.sessionsCh <- m.SessionID:
			default:
			}
		case protocol.Reject:
			p.mu.Lock()
			p.rejected = &m
			p.mu.Unlock()
			return fmt.Errorf("rejected: %s: %s", m.Code, m.Message)
		case protocol.Ping:
			if !p.cfg.NoPong {
				_ = p.Send(protocol.Pong{T: m.T})
			}
		case protocol.ErrorNotice:
			p.notices.add(m)
		case protocol.Replaced:
			p.mu.Lock()
			p.replaced = true
			p.mu.Unlock()
		case protocol.Goodbye:
			p.goodbyes.add(m.Reason)
		case protocol.Cancel:
			p.cancels.add(m.ID)
			if cancel := inflight[m.ID]; cancel != nil {
				cancel()
			}
		case protocol.Request:
			p.received.add(m)
			rctx, cancel := context.WithCancel(p.ctx)
			inflight[m.ID] = cancel
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.answer(rctx, c, m)
			}()
		}
	}
}

// answer plays the scripted reply to req on c.
func (p *Plugin) answer(ctx context.Context, c *websocket.Conn, req protocol.Request) {
	r := reply(p.cfg.Handler, req)
	for _, f := range r.progress("", req.ID) {
		_ = p.Send(f)
	}
	if r.Drop {
		_ = c.CloseNow()
		return
	}
	if r.Raw != nil {
		_ = p.SendRaw(r.Raw)
		return
	}
	frames, ok := r.outcome(ctx, "", req.ID)
	if !ok {
		return
	}
	for _, f := range frames {
		_ = p.Send(f)
	}
}
