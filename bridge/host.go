package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// HostConfig configures a Host.
type HostConfig struct {
	// Listener is the bound port; the host serves on it and closes it.
	Listener net.Listener
	// Version is this build's version, reported on /health and in welcomes.
	Version string
	// Log receives diagnostics.
	Log *slog.Logger
	// Heartbeat is the ping interval; zero means the protocol default.
	Heartbeat time.Duration
	// PluginVersion is the version of the plugin this build installs
	// (install-plugin); a connecting plugin older than it gets a warning.
	PluginVersion string
	// Grace is how long after it starts the host waits for a session a
	// call names but that has not registered yet; zero means none.
	Grace time.Duration
	// ResumeGrace is how long a plugin session whose socket dropped is
	// held with its in-flight calls; zero means protocol.ResumeGrace.
	ResumeGrace time.Duration
	// Token is the user's token: a client must present it in its
	// client-hello. With none, every client is refused.
	Token authtoken.Token
	// Awaiting lists the sessions of the host this one replaces (a
	// failover): the host expects them back, and tells joining clients which
	// are still missing, so that they stop waiting for plugins once every
	// one has re-registered rather than after the whole Grace.
	Awaiting []string
	// HostFile, when set, is written while the host serves (see
	// hostfile.go) and removed when it stops.
	HostFile string
	// HandshakeTimeout is how long a new connection has to send its hello;
	// zero means protocol.HandshakeTimeout (tests shorten it).
	HandshakeTimeout time.Duration

	// budgets overrides the protocol's deadlines and caps (tests shorten
	// them); what it leaves zero is the protocol's value.
	budgets budgets
	// entropy overrides the host's random values (tests replaying
	// recorded conversations); what it leaves nil is random.
	entropy entropy
}

// Host owns the bridge port: it serves /health, accepts plugin sessions on
// /plugin and studio-bridge clients on /client, and relays actions, replies,
// progress and events between them.
type Host struct {
	cfg HostConfig
	// pairKey is the plugin pairing key, derived from cfg.Token (nil without one).
	pairKey []byte
	hub     *hub
	started time.Time
	port    int
	srv     *http.Server

	ctx    context.Context // ends when the host stops
	cancel context.CancelFunc

	mu       sync.Mutex
	plugins  map[string]*pluginSession  // by session id: attached, or held in the resume grace
	sockets  map[*pluginSocket]struct{} // open /plugin connections
	clients  map[string]*clientConn
	watching map[string]map[*clientConn]struct{} // session id → clients relaying its events
	expected map[string]struct{}                 // sessions a lost host had (cfg.Awaiting, rejoining clients' lists)
	leaving  bool                                // clients have been told the host is going, or it is killed
	draining atomic.Bool

	// Memory budgets of what the host reads (frames.go, PROTOCOL.md 4).
	handshakeBudget   *semaphore.Weighted        // first frames, PreHandshakeBudgetBytes
	pluginFrameBudget *semaphore.Weighted        // large plugin frames, PluginFrameBudgetBytes
	clientFrameBudget *semaphore.Weighted        // large client frames, ClientFrameBudgetBytes
	reassembly        *protocol.ByteBudget       // chunked replies, ReassemblyBudgetBytes
	budgets           budgets                    // deadlines and caps (budgets.go)
	idle              map[*pluginSocket]struct{} // /plugin sockets without a session yet (guarded by mu)

	conns    sync.WaitGroup // connection handlers and relayed calls
	inflight sync.WaitGroup // relayed client calls, awaited before a hand-off
	served   chan struct{}
	serveErr error
}

// NewHost returns a host serving on cfg.Listener. It starts serving at once.
func NewHost(cfg HostConfig) *Host { return newHost(cfg, newHub(cfg.Log)) }

func newHost(cfg HostConfig, hb *hub) *Host {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = protocol.DefaultHeartbeatInterval
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	h := &Host{
		cfg:      cfg,
		pairKey:  cfg.Token.PairingKey(),
		hub:      hb,
		started:  time.Now(),
		plugins:  map[string]*pluginSession{},
		sockets:  map[*pluginSocket]struct{}{},
		clients:  map[string]*clientConn{},
		watching: map[string]map[*clientConn]struct{}{},
		expected: map[string]struct{}{},
		served:   make(chan struct{}),

		handshakeBudget:   semaphore.NewWeighted(protocol.PreHandshakeBudgetBytes),
		pluginFrameBudget: semaphore.NewWeighted(cfg.budgets.withDefaults().pluginFrames),
		clientFrameBudget: semaphore.NewWeighted(protocol.ClientFrameBudgetBytes),
		reassembly:        protocol.NewByteBudget(protocol.ReassemblyBudgetBytes),
		budgets:           cfg.budgets.withDefaults(),
		idle:              map[*pluginSocket]struct{}{},
	}
	for _, id := range cfg.Awaiting {
		h.expected[id] = struct{}{}
	}
	if a, ok := cfg.Listener.Addr().(*net.TCPAddr); ok {
		h.port = a.Port
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	if cfg.HostFile != "" {
		if err := writeHostFile(cfg.HostFile, hostFileRecord(h.port, cfg.Version, h.started)); err != nil {
			cfg.Log.Warn("cannot write the host file; a stopped host will be reported as another program", "err", err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+protocol.PathHealth, h.serveHealth)
	mux.HandleFunc(protocol.PathPlugin, h.servePlugin)
	mux.HandleFunc(protocol.PathClient, h.serveClient)
	h.srv = &http.Server{
		Handler:           guard(mux, cfg.Log),
		ReadHeaderTimeout: 5 * time.Second,
		// /health callers are one-shot; WebSocket connections are hijacked
		// and carry their own deadlines and heartbeats.
		IdleTimeout:    30 * time.Second,
		MaxHeaderBytes: 16 << 10,
		ErrorLog:       slog.NewLogLogger(cfg.Log.Handler(), slog.LevelDebug),
		BaseContext:    func(net.Listener) context.Context { return h.ctx },
	}
	go func() {
		defer close(h.served)
		err := h.srv.Serve(cfg.Listener)
		if !errors.Is(err, http.ErrServerClosed) {
			h.serveErr = err
		}
	}()
	return h
}

// handshakeTimeout is how long a new connection has to send its hello.
func (h *Host) handshakeTimeout() time.Duration {
	if h.cfg.HandshakeTimeout > 0 {
		return h.cfg.HandshakeTimeout
	}
	return protocol.HandshakeTimeout
}

// Addr is the address the host serves on.
func (h *Host) Addr() net.Addr { return h.cfg.Listener.Addr() }

// StartedAt is when the host began serving.
func (h *Host) StartedAt() time.Time { return h.started }

// Done is closed once the host has stopped serving.
func (h *Host) Done() <-chan struct{} { return h.served }

// Sessions lists the connected sessions in display order.
func (h *Host) Sessions() []protocol.SessionInfo {
	s, _ := h.hub.snapshot()
	return s
}

func (h *Host) counts() (sessions, clients int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.plugins), len(h.clients)
}

// Shutdown stops the host gracefully: /health turns to draining, relayed
// calls still running get until ctx ends to finish, the port is released,
// clients are told to take it over and plugins are told to reconnect.
func (h *Host) Shutdown(ctx context.Context, reason string) error {
	h.mu.Lock()
	already := h.draining.Swap(true)
	h.mu.Unlock()
	if already {
		<-h.served
		return nil
	}
	if n := h.relaying(); n > 0 {
		attrs := []any{"calls", n}
		if d, ok := ctx.Deadline(); ok {
			attrs = append(attrs, "waitingAtMost", time.Until(d).Round(time.Second))
		}
		h.cfg.Log.Warn("handing over once the calls this host relays finish (interrupt again to stop at once)", attrs...)
	}
	waitCtx(ctx, &h.inflight)
	_ = h.srv.Close()
	<-h.served

	h.mu.Lock()
	h.leaving = true
	for _, c := range h.clients {
		_ = c.send(protocol.HostTransfer{Reason: reason})
		c.closeAfter(1001, "host-transfer")
	}
	for sock := range h.sockets {
		_ = sock.send(protocol.Goodbye{Reason: reason})
		sock.closeAfter(1001, "host shutting down")
	}
	h.endHeldLocked()
	h.mu.Unlock()
	if !waitCtx(ctx, &h.conns) {
		h.cancel()
		h.conns.Wait()
	}
	h.cancel()
	h.forgetHostFile()
	return h.serveErr
}

// forgetHostFile removes the host file, if this host still owns it.
func (h *Host) forgetHostFile() {
	if h.cfg.HostFile != "" {
		removeHostFile(h.cfg.HostFile, os.Getpid())
	}
}

// relaying counts the client calls this host is relaying.
func (h *Host) relaying() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.clients {
		c.mu.Lock()
		n += len(c.calls)
		c.mu.Unlock()
	}
	return n
}

// Kill stops the host at once, as a crash would: sockets close without
// goodbyes. Tests use it; so does a process that must exit now.
func (h *Host) Kill() {
	h.mu.Lock()
	h.draining.Store(true)
	h.leaving = true
	h.mu.Unlock()
	_ = h.srv.Close()
	h.cancel()
	<-h.served
	h.conns.Wait()
	h.mu.Lock()
	h.endHeldLocked()
	h.mu.Unlock()
	h.forgetHostFile()
}

// waitCtx waits for wg until ctx ends and reports whether wg finished.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// plugin finds a session's connection. A host younger than its grace waits
// for an unknown session: after a failover, plugins re-register with the new
// host within a second or two, and a call that names one of them (an agent
// holding a sessionId, a request sent again after the failover) should reach
// it rather than fail with "Session not found".
func (h *Host) plugin(ctx context.Context, sessionID string) *pluginSession {
	var expired <-chan time.Time
	for {
		h.mu.Lock()
		pc := h.plugins[sessionID]
		changed := h.hub.changedCh()
		h.mu.Unlock()
		wait := time.Until(h.started.Add(h.cfg.Grace))
		if pc != nil || wait <= 0 {
			return pc
		}
		if expired == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-changed:
		case <-expired:
		case <-ctx.Done():
			return nil
		}
	}
}

// call runs action on a plugin session. It is the one place where requests
// reach plugins, for local callers and relayed clients alike.
func (h *Host) call(ctx context.Context, sessionID, action string, payload json.RawMessage, timeout time.Duration, onProgress func(json.RawMessage)) (json.RawMessage, error) {
	if h.draining.Load() {
		return nil, protocol.Errorf(protocol.CodeShuttingDown, "the bridge host is shutting down; retry in a moment")
	}
	pc := h.plugin(ctx, sessionID)
	if pc == nil {
		return nil, protocol.Errorf(protocol.CodeSessionNotFound, "Session not found: %s", sessionID)
	}
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	return pc.call(ctx, action, payload, timeout, onProgress)
}
