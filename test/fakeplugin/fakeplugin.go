package fakeplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Reply is a scripted answer to one request.
type Reply struct {
	// Progress payloads are sent, in order, before the response.
	Progress []any
	// Payload is the response payload when Err is nil.
	Payload any
	// Err makes the response an error.
	Err *protocol.Error
	// Delay waits before answering (cancellable by the host's cancel).
	Delay time.Duration
	// ChunkSize > 0 sends the payload as chunks of at most that many bytes.
	ChunkSize int
	// Stall never answers.
	Stall bool
	// Drop closes the socket instead of answering (after any Progress).
	Drop bool
	// Raw, when set, is written as one text frame instead of a response:
	// garbage, a frame of the wrong shape, or one over the host's limit.
	// The request is then never answered properly.
	Raw []byte
}

// Oversize is a response frame for request id with a payload of n bytes.
func Oversize(id string, n int) []byte {
	head := `{"type":"response","id":"` + id + `","ok":true,"payload":"`
	return []byte(head + strings.Repeat("x", max(0, n-len(head)-2)) + `"}`)
}

// Handler answers one action.
type Handler func(action string, payload json.RawMessage) Reply

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
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu         sync.Mutex
	conn       *websocket.Conn
	sessionID  string
	secret     string
	replaced   bool
	connects   int
	welcomed   chan struct{}
	rejected   *protocol.Reject
	notices    []protocol.ErrorNotice
	goodbyes   []string
	received   []protocol.Request
	cancels    []string
	lastClose  error
	closeCode  websocket.StatusCode
	writeMu    sync.Mutex
	sessionsCh chan string
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
		cfg.RetryDelays = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}
	}
	p := &Plugin{cfg: cfg, done: make(chan struct{}), welcomed: make(chan struct{}), sessionsCh: make(chan string, 16), closeCode: -1}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.loop()
	return p
}

// Close stops the plugin and waits for it.
func (p *Plugin) Close() {
	p.cancel()
	<-p.done
}

// SessionID is the id the host assigned most recently ("" before welcome).
func (p *Plugin) SessionID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessionID
}

// Connects counts successful handshakes.
func (p *Plugin) Connects() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connects
}

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
func (p *Plugin) WasReplaced() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.replaced
}

// ResumeSecret is the secret of the latest welcome.
func (p *Plugin) ResumeSecret() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.secret
}

// Rejected returns the reject the host sent, if any.
func (p *Plugin) Rejected() *protocol.Reject {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rejected
}

// Notices returns the error notices the host sent.
func (p *Plugin) Notices() []protocol.ErrorNotice {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]protocol.ErrorNotice(nil), p.notices...)
}

// Goodbyes returns the reasons of goodbyes received.
func (p *Plugin) Goodbyes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.goodbyes...)
}

// Cancels returns the request ids the host cancelled.
func (p *Plugin) Cancels() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.cancels...)
}

// Requests returns the requests received so far.
func (p *Plugin) Requests() []protocol.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]protocol.Request(nil), p.received...)
}

// LastClose is the error that ended the latest connection.
func (p *Plugin) LastClose() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastClose
}

// CloseStatus is the WebSocket close status that ended the latest
// connection, or -1 while it is open or when it ended without a close frame.
func (p *Plugin) CloseStatus() websocket.StatusCode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closeCode
}

// SendRaw writes bytes as one text frame on the live connection.
func (p *Plugin) SendRaw(data []byte) error {
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c == nil {
		return errors.New("not connected")
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, data)
}

// Send writes one protocol message.
func (p *Plugin) Send(m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return p.SendRaw(data)
}

// Drop closes the live connection abruptly, as a crashing Studio would.
func (p *Plugin) Drop() {
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c != nil {
		_ = c.CloseNow()
	}
}

func (p *Plugin) loop() {
	defer close(p.done)
	attempt := 0
	for {
		err := p.session()
		p.mu.Lock()
		p.conn = nil
		p.lastClose = err
		p.mu.Unlock()
		p.mu.Lock()
		replaced := p.replaced
		p.mu.Unlock()
		if p.cfg.NoReconnect || replaced || p.ctx.Err() != nil {
			return // after "replaced" a plugin must not come back (PROTOCOL.md 12.10)
		}
		if err == nil {
			attempt = 0 // a session that was welcomed restarts the schedule
		}
		delay := p.cfg.RetryDelays[min(attempt, len(p.cfg.RetryDelays)-1)]
		attempt++
		select {
		case <-time.After(delay):
		case <-p.ctx.Done():
			return
		}
	}
}

// session polls /health, connects, and serves one connection. It returns nil
// when a welcomed connection ended, an error when it never got that far.
func (p *Plugin) session() error {
	base := "127.0.0.1:" + strconv.Itoa(p.cfg.Port)
	hctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	req, _ := http.NewRequestWithContext(hctx, http.MethodGet, "http://"+base+protocol.PathHealth, nil)
	resp, err := http.DefaultClient.Do(req)
	cancel()
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s", resp.Status)
	}
	dctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	c, _, err := websocket.Dial(dctx, "ws://"+base+protocol.PathPlugin, nil)
	cancel()
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	c.SetReadLimit(protocol.ClientMaxFrameBytes)
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
			p.mu.Lock()
			p.notices = append(p.notices, m)
			p.mu.Unlock()
		case protocol.Replaced:
			p.mu.Lock()
			p.replaced = true
			p.mu.Unlock()
		case protocol.Goodbye:
			p.mu.Lock()
			p.goodbyes = append(p.goodbyes, m.Reason)
			p.mu.Unlock()
		case protocol.Cancel:
			p.mu.Lock()
			p.cancels = append(p.cancels, m.ID)
			p.mu.Unlock()
			if cancel := inflight[m.ID]; cancel != nil {
				cancel()
			}
		case protocol.Request:
			p.mu.Lock()
			p.received = append(p.received, m)
			p.mu.Unlock()
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

func (p *Plugin) answer(ctx context.Context, c *websocket.Conn, req protocol.Request) {
	var r Reply
	if p.cfg.Handler != nil {
		r = p.cfg.Handler(req.Action, req.Payload)
	} else {
		r = Reply{Payload: map[string]string{"action": req.Action}}
	}
	for _, prog := range r.Progress {
		raw, _ := json.Marshal(prog)
		_ = p.Send(protocol.Progress{ID: req.ID, Payload: raw})
	}
	if r.Drop {
		_ = c.CloseNow()
		return
	}
	if r.Raw != nil {
		_ = p.SendRaw(r.Raw)
		return
	}
	if r.Stall {
		<-ctx.Done()
		return
	}
	if r.Delay > 0 {
		select {
		case <-time.After(r.Delay):
		case <-ctx.Done():
			_ = p.Send(protocol.Response{ID: req.ID, Error: protocol.Errorf(protocol.CodeCancelled, "cancelled")})
			return
		}
	}
	if r.Err != nil {
		_ = p.Send(protocol.Response{ID: req.ID, Error: r.Err})
		return
	}
	raw, err := json.Marshal(r.Payload)
	if err != nil {
		_ = p.Send(protocol.Response{ID: req.ID, Error: protocol.Errorf(protocol.CodeInternal, "%v", err)})
		return
	}
	if r.ChunkSize > 0 {
		parts := protocol.Split(raw, r.ChunkSize)
		for i, part := range parts {
			_ = p.Send(protocol.Chunk{ID: req.ID, Seq: i, Data: part})
		}
		_ = p.Send(protocol.Response{ID: req.ID, OK: true, Chunks: len(parts)})
		return
	}
	_ = p.Send(protocol.Response{ID: req.ID, OK: true, Payload: raw})
}
