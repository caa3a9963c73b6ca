package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Options configures Connect.
type Options struct {
	// Port is the loopback port of the bridge; zero means protocol.DefaultPort.
	Port int
	// Remote ("host:port") makes this process a client only, of the host
	// there; it never binds a port.
	Remote string
	// Version is this build's version.
	Version string
	// PluginVersion is the version of the plugin this build installs; a
	// host warns about plugins older than it.
	PluginVersion string
	// Log receives diagnostics.
	Log *slog.Logger
	// Heartbeat overrides the ping interval (tests).
	Heartbeat time.Duration
	// HandshakeTimeout overrides how long a host waits for a new
	// connection's hello (tests).
	HandshakeTimeout time.Duration
	// JoinTimeout bounds one attempt to become or join the host; zero means
	// 5 s.
	JoinTimeout time.Duration
	// Grace overrides ResolveGrace (tests whose plugins retry faster than
	// the real plugin's 2 s poll).
	Grace time.Duration
	// Token is the user's token, presented to the host and, as host,
	// required of clients; Connect refuses to start without one. The CLI
	// resolves it (authtoken.Settings.Resolve: STUDIO_BRIDGE_TOKEN, else the
	// token file, created if missing); it is never rotated, so a failover
	// takes the port over with the same one.
	Token authtoken.Token
	// Lazy lets Connect succeed when no host can be joined yet (a --remote
	// host that is not up): the Bridge keeps trying in the background, and
	// calls meanwhile fail with HOST_UNAVAILABLE after FailoverWait. For
	// long-lived surfaces (the MCP server) that must not die with the host.
	Lazy bool
	// UnreachableWait bounds how long a caller waits for a host when the
	// latest attempt to reach one failed (a --remote host that is down):
	// long enough for a failover to finish, short enough that an agent
	// hears "cannot connect" in seconds. Zero means FailoverWait.
	UnreachableWait time.Duration
	// ConfigDir is where the host keeps its host file (the config
	// directory, authtoken.Settings.ConfigDir), which
	// names a host that holds the port but does not answer (stopped, hung);
	// "" keeps none (tests).
	ConfigDir string
	// Listen, when set, binds the bridge port in place of a TCP listen on
	// 127.0.0.1:Port; an error it returns that is not "address in use"
	// fails the attempt. Dial, when set, is every connection this process
	// opens to a host (to join it, or to ask /health who holds the port)
	// in place of a TCP dial; it must fail at once (as a refused TCP dial
	// does) while nothing listens. Tests set both to run Bridges on an
	// in-memory network (test/kit/memnet) with no port to find free, so
	// they run in parallel; the product leaves them nil.
	Listen func(ctx context.Context) (net.Listener, error)
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Timing of resolution and failover.
const (
	// ResolveGrace is how long after a host starts resolution waits for
	// plugins that are still finding it.
	ResolveGrace = 3 * time.Second
	// FailoverJitter bounds the random wait before a client races for the
	// port, so that one of several clients wins cleanly.
	FailoverJitter = 250 * time.Millisecond
	// HandoffTimeout bounds how long a leaving host waits for relayed calls.
	HandoffTimeout = 2 * time.Minute
	// FailoverWait bounds how long a caller waits for a failover to finish
	// before it gets HOST_UNAVAILABLE.
	FailoverWait = 10 * time.Second
)

// Bridge is this process's membership of the bridge network. It satisfies
// Conn in either role and survives failovers.
type Bridge struct {
	opts Options
	addr string
	log  *slog.Logger
	hub  *hub

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	mu    sync.Mutex
	cur   backend
	ready chan struct{} // closed while cur is usable
	// unreachable is why the latest attempt to become or join a host
	// failed, while there is no backend; failed is closed and replaced
	// whenever it is set.
	unreachable error
	failed      chan struct{}
	// returning are the sessions listed when the last host was lost. The
	// next host expects them back (HostConfig.Awaiting, or this process's
	// client-hello when it joins another winner), and its resolution grace
	// ends as soon as all of them are back, not after ResolveGrace: they
	// reconnect within a second, while the grace allows for plugins still
	// on their 2 s search poll.
	returning []string
}

var _ Conn = (*Bridge)(nil)

// Connect makes this process the bridge host, or joins the host that
// already owns the port. The returned Bridge keeps this process on the
// network, taking the port over if the host goes away, until Close.
func Connect(ctx context.Context, opts Options) (*Bridge, error) {
	if opts.Port == 0 {
		opts.Port = protocol.DefaultPort
	}
	if opts.JoinTimeout <= 0 {
		opts.JoinTimeout = 5 * time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = ResolveGrace
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Token.Value == "" {
		return nil, errors.New("bridge.Connect: Options.Token is empty (resolve the user's token with authtoken.Settings.Resolve)")
	}
	b := &Bridge{
		opts:   opts,
		addr:   net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)),
		log:    opts.Log,
		hub:    newHub(opts.Log),
		done:   make(chan struct{}),
		ready:  make(chan struct{}),
		failed: make(chan struct{}),
	}
	if b.opts.UnreachableWait <= 0 {
		b.opts.UnreachableWait = FailoverWait
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	be, err := b.establish(ctx)
	var stranger *PortInUseError
	switch {
	case err == nil:
		b.install(be)
	case opts.Lazy && IsTokenError(err):
		// Loud even at mcp's default level (error): every call will fail
		// until this process gets the host's token.
		b.log.Error("the bridge host does not share this process's token; will keep trying", "addr", b.Addr(), "err", err)
		b.setUnreachable(err)
		be = nil
	case opts.Lazy && !errors.As(err, &stranger):
		b.log.Warn("no bridge host yet; will keep trying", "addr", b.Addr(), "err", err)
		b.setUnreachable(err)
		be = nil
	default:
		b.cancel()
		return nil, err
	}
	go b.supervise(be)
	return b, nil
}

// Role reports the part this process plays right now, for diagnostics.
func (b *Bridge) Role() Role {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur == nil {
		return RoleNone
	}
	return b.cur.role()
}

// Addr is the bridge host's address.
func (b *Bridge) Addr() string {
	if b.opts.Remote != "" {
		return b.opts.Remote
	}
	return b.addr
}

func (b *Bridge) install(be backend) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cur = be
	b.unreachable = nil
	close(b.ready)
	switch be.role() {
	case RoleHost:
		b.log.Info("serving as the bridge host", "addr", b.addr)
	default:
		b.log.Debug("joined the bridge host", "addr", b.Addr())
	}
}

// setUnreachable records why the latest attempt to reach a host failed.
func (b *Bridge) setUnreachable(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unreachable = err
	close(b.failed)
	b.failed = make(chan struct{})
}

// UnreachableError means no studio-bridge host could be reached at all
// (it is not running, or something else holds its port): not a failover
// in progress. It carries HOST_UNAVAILABLE.
type UnreachableError struct {
	Addr string
	Err  error // the latest attempt's failure
	perr *protocol.Error
}

func (e *UnreachableError) Error() string { return e.perr.Message }
func (e *UnreachableError) Unwrap() error { return e.perr }

func newUnreachable(addr string, wait time.Duration, err error) *UnreachableError {
	return &UnreachableError{Addr: addr, Err: err, perr: protocol.Errorf(protocol.CodeHostUnavailable,
		"cannot reach a studio-bridge host at %s (still trying for %s): %v", addr, wait, err)}
}

// backend waits until a backend is usable: at most FailoverWait, or
// UnreachableWait once an attempt to reach a host has failed.
func (b *Bridge) backend(ctx context.Context) (backend, error) {
	var expired, gaveUp <-chan time.Time
	for {
		b.mu.Lock()
		cur, ready, failed, unreachable := b.cur, b.ready, b.failed, b.unreachable
		b.mu.Unlock()
		if cur != nil {
			return cur, nil
		}
		if expired == nil {
			t := time.NewTimer(FailoverWait)
			defer t.Stop()
			expired = t.C
		}
		if unreachable != nil && gaveUp == nil {
			t := time.NewTimer(b.opts.UnreachableWait)
			defer t.Stop()
			gaveUp = t.C
		}
		select {
		case <-ready:
		case <-failed:
		case <-gaveUp:
			b.mu.Lock()
			err := b.unreachable
			b.mu.Unlock()
			if err == nil {
				continue // a host was reached meanwhile
			}
			var te *TokenError
			if errors.As(err, &te) {
				return nil, te // a host is there, and this process has the wrong token: say so as it is
			}
			return nil, newUnreachable(b.Addr(), b.opts.UnreachableWait, err)
		case <-expired:
			return nil, protocol.Errorf(protocol.CodeHostUnavailable,
				"no bridge host answered on %s within %s: it is not running, or a failover has not completed (see --log-level info)", b.Addr(), FailoverWait)
		case <-ctx.Done():
			return nil, protocol.Errorf(protocol.CodeHostUnavailable, "no bridge host available (failover still in progress): %v", ctx.Err())
		case <-b.ctx.Done():
			return nil, protocol.Errorf(protocol.CodeHostUnavailable, "bridge connection closed")
		}
	}
}

// supervise replaces a lost backend: after a random jitter it races the
// other clients for the port, and either wins it or joins the winner.
func (b *Bridge) supervise(be backend) {
	defer close(b.done)
	for {
		if be != nil {
			select {
			case <-b.ctx.Done():
				return
			case <-be.lostCh():
			}
			returning := b.hub.ids()
			b.mu.Lock()
			b.cur, b.ready = nil, make(chan struct{})
			b.returning = returning
			b.mu.Unlock()
			b.log.Info("lost the bridge host; taking over or rejoining", "addr", b.Addr())
		}
		backoff := 100 * time.Millisecond
		for {
			if !sleepCtx(b.ctx, rand.N(FailoverJitter)) {
				return
			}
			next, err := b.establish(b.ctx)
			if err == nil {
				be = next
				b.install(be)
				break
			}
			if b.ctx.Err() != nil {
				return
			}
			b.setUnreachable(err)
			b.log.Warn("bridge failover attempt failed; retrying", "err", err, "in", backoff)
			if !sleepCtx(b.ctx, backoff) {
				return
			}
			backoff = min(backoff*2, 2*time.Second)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// PortInUseError means something other than a studio-bridge host holds the
// bridge port.
type PortInUseError struct {
	Addr   string
	Detail string
}

func (e *PortInUseError) Error() string {
	_, port, _ := net.SplitHostPort(e.Addr)
	return fmt.Sprintf("port %s on 127.0.0.1 is in use by another program that is not a studio-bridge host (%s); stop that program, or run studio-bridge on another port with --port or STUDIO_BRIDGE_PORT (and set the same port in the Studio plugin's settings)", port, e.Detail)
}

// establish binds the port and becomes the host, or joins the host that has
// it. It never closes a listener it bound: the port is held from the first
// moment.
//
// A host that is handing over (it answers /health with "draining" while it
// finishes relayed calls, at most HandoffTimeout) is waited for rather than
// counted as a failure: the port comes free, or a client takes it over,
// when it is done.
func (b *Bridge) establish(parent context.Context) (backend, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	deadline := time.AfterFunc(b.opts.JoinTimeout, cancel)
	defer deadline.Stop()
	b.mu.Lock()
	returning := b.returning
	b.mu.Unlock()
	if b.opts.Remote != "" {
		l, err := dialLink(ctx, b.opts.Remote, b.opts.Dial, b.opts.Version, b.opts.Token, b.log, b.opts.Heartbeat, b.hub, returning)
		var refused *protocol.Error
		if errors.As(err, &refused) {
			return nil, err // the host answered, and said no (e.g. a wrong token)
		}
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeHostUnavailable,
				"no studio-bridge host answers at %s (from --remote / STUDIO_BRIDGE_REMOTE): %v", b.opts.Remote, err)
		}
		return l, nil
	}
	var lastErr error
	for {
		// Most often a host is there: join it straight away. Only when
		// that fails does this process race for the port, and only if the
		// port is taken ask /health who holds it. (Dialling first saves a
		// one-shot command the failed listen, 0.1–0.2 ms here.)
		jctx, cancel := context.WithTimeout(ctx, time.Second)
		l, joinErr := dialLink(jctx, b.addr, b.opts.Dial, b.opts.Version, b.opts.Token, b.log, b.opts.Heartbeat, b.hub, returning)
		cancel()
		var refused *protocol.Error
		switch {
		case joinErr == nil:
			return l, nil
		case errors.As(joinErr, &refused):
			return nil, joinErr // the host answered, and said no
		}
		// Plain TCP: Go listens with MPTCP by default, which costs a
		// one-shot command about 0.3 ms here and gains nothing on loopback.
		ln, err := b.listen(ctx)
		if err == nil {
			b.hub.reset(nil)
			return newHost(HostConfig{Listener: ln, Version: b.opts.Version, Log: b.log, Heartbeat: b.opts.Heartbeat,
				Grace: b.opts.Grace, PluginVersion: b.opts.PluginVersion, Token: b.opts.Token, Awaiting: returning,
				HostFile: hostFilePath(b.opts.ConfigDir, b.opts.Port), HandshakeTimeout: b.opts.HandshakeTimeout}, b.hub), nil
		}
		if !isAddrInUse(err) {
			return nil, fmt.Errorf("cannot listen on %s: %w", b.addr, err)
		}
		health, err := probeHealth(ctx, b.addr, b.opts.Dial)
		switch {
		case err == nil && health.Status == "ok":
			lastErr = joinErr // a host is there, but joining it failed: again
		case err == nil:
			if lastErr != errDraining {
				b.log.Info("the bridge host is handing over; waiting for it to finish its running calls", "addr", b.addr)
				deadline.Reset(HandoffTimeout + b.opts.JoinTimeout)
			}
			lastErr = errDraining
		case errors.Is(err, errSilent):
			if e := notAnswering(b.opts.ConfigDir, b.addr, err); e != nil {
				return nil, e // our own host, stopped or hung
			}
			return nil, &PortInUseError{Addr: b.addr, Detail: err.Error()}
		case errors.Is(err, errStranger):
			return nil, &PortInUseError{Addr: b.addr, Detail: err.Error()}
		default:
			lastErr = err // the host left between our bind and our probe
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return nil, protocol.Errorf(protocol.CodeHostUnavailable,
				"could not become or join the bridge host on %s: %v", b.addr, lastErr)
		}
	}
}

var (
	errStranger = errors.New("not a studio-bridge host")
	// errSilent is a holder of the port that accepts connections but does
	// not answer: a stranger, or a studio-bridge host that is stopped.
	errSilent = fmt.Errorf("%w: it accepted a connection but did not answer HTTP within 1s", errStranger)
)

// listen binds the bridge port: Options.Listen, else TCP on b.addr.
func (b *Bridge) listen(ctx context.Context) (net.Listener, error) {
	if b.opts.Listen != nil {
		return b.opts.Listen(ctx)
	}
	// Plain TCP: Go listens with MPTCP by default, which costs a
	// one-shot command about 0.3 ms here and gains nothing on loopback.
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(ctx, "tcp", b.addr)
}

// probeHealth asks whoever holds addr whether it is a studio-bridge host.
// dial, when not nil, replaces the TCP dial (Options.Dial).
func probeHealth(parent context.Context, addr string, dial func(context.Context, string, string) (net.Conn, error)) (Health, error) {
	ctx, cancel := context.WithTimeout(parent, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+protocol.PathHealth, nil)
	if err != nil {
		return Health{}, err
	}
	client := http.DefaultClient
	if dial != nil {
		client = &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
	}
	resp, err := client.Do(req)
	if err != nil {
		var opErr *net.OpError
		if errors.As(err, &opErr) && isConnRefused(err) {
			return Health{}, err
		}
		if parent.Err() != nil {
			return Health{}, parent.Err() // our own deadline, not a silent stranger
		}
		if ctx.Err() != nil {
			return Health{}, errSilent
		}
		return Health{}, fmt.Errorf("%w: %v", errStranger, err)
	}
	defer func() { _ = resp.Body.Close() }() // a read body's Close error says nothing about what was read
	var h Health
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 64<<10)).Decode(&h); err != nil || h.Service != protocol.ServiceName {
		return Health{}, fmt.Errorf("%w: GET %s answered %s", errStranger, protocol.PathHealth, resp.Status)
	}
	return h, nil
}

// Sessions implements Conn. A host younger than ResolveGrace first waits out
// the grace: plugins that were already running poll for a host every 2 s, so
// until then the list may lack a Studio window, and acting on a partial list
// could send a command to the wrong one. After a failover the wait ends as
// soon as every session the lost host had is back: the host knows which
// those are and tells every joining process, fresh ones included.
func (b *Bridge) Sessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	for {
		be, err := b.backend(ctx)
		if err != nil {
			return nil, err
		}
		expected, settled := be.returningSessions()
		// The list and its completeness are read in one step: a list read
		// before the check could lack a session the check then saw.
		s, changed, all := b.hub.snapshotHaving(expected)
		wait := time.Until(be.hostStartedAt().Add(b.opts.Grace))
		if wait <= 0 || settled || (len(expected) > 0 && all) {
			return s, nil
		}
		timer := time.NewTimer(wait)
		select {
		case <-be.lostCh():
		case <-timer.C:
			// Said so that a test can tell which wait applied.
			b.log.Debug("waited out the resolution grace", "grace", b.opts.Grace, "expected", len(expected))
		case <-changed:
		case <-ctx.Done():
			timer.Stop()
			return s, nil
		}
		timer.Stop()
	}
}

// WatchSessions implements Conn.
func (b *Bridge) WatchSessions(ctx context.Context) <-chan SessionEvent {
	return b.hub.watchSessions(ctx)
}

// Resolve implements Conn. A named session that is already connected is
// used at once; anything else is resolved against the full list, which on a
// fresh host means after its grace (see Sessions).
func (b *Bridge) Resolve(ctx context.Context, t Target) (protocol.SessionInfo, error) {
	if t.SessionID != "" {
		if _, err := b.backend(ctx); err != nil {
			return protocol.SessionInfo{}, err
		}
		if s, ok := b.hub.get(t.SessionID); ok {
			return s, nil
		}
	}
	sessions, err := b.Sessions(ctx)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	return Resolve(sessions, t)
}

// Call implements Conn. A request that provably did not run is sent again
// once the host has been replaced: one that never left this process because
// the link was already breaking, and one a handing-over host refused with
// SHUTTING_DOWN (it waits, at most HandoffTimeout, for the host to finish the
// calls it is still relaying).
func (b *Bridge) Call(ctx context.Context, sessionID, action string, payload json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	onProgress := opts.OnProgress
	if onProgress != nil {
		q := newProgressQueue(onProgress)
		defer q.drain()
		onProgress = q.push
	}
	var lost backend
	var lastErr error
	var giveUp time.Time
	for {
		be, err := b.backend(ctx)
		if err != nil {
			return nil, err
		}
		if be == lost { // the supervisor has not replaced it yet
			if time.Now().After(giveUp) || !sleepCtx(ctx, 5*time.Millisecond) {
				return nil, lastErr
			}
			continue
		}
		out, err := be.call(ctx, sessionID, action, payload, opts.Timeout, onProgress)
		wait := resendWait(err)
		if wait == 0 || (lost != nil && time.Now().After(giveUp)) {
			return out, err
		}
		if lost == nil {
			giveUp = time.Now().Add(wait)
			if wait > FailoverWait {
				b.log.Info("the bridge host is handing over; the call waits for the new host", "action", action)
			}
		}
		lost, lastErr = be, err
	}
}

// resendWait is how long Call may wait for a new host to send a request
// again after err, or zero if err is final.
func resendWait(err error) time.Duration {
	switch {
	case err == errNotSent:
		return FailoverWait
	case protocol.CodeOf(err) == protocol.CodeShuttingDown:
		return HandoffTimeout + FailoverWait
	}
	return 0
}

// Events implements Conn.
func (b *Bridge) Events(ctx context.Context, sessionID string) <-chan protocol.Event {
	onFirst := func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.cur != nil {
			b.cur.watch(sessionID)
		}
	}
	onLast := func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.cur != nil {
			b.cur.unwatch(sessionID)
		}
	}
	return b.hub.watchEvents(ctx, sessionID, onFirst, onLast)
}

// Close implements Conn. A host waits for the calls it relays (at most
// HandoffTimeout), then hands the port to its clients.
func (b *Bridge) Close() error {
	b.once.Do(func() {
		if cur := b.stop(); cur != nil {
			ctx, cancel := context.WithTimeout(context.Background(), HandoffTimeout)
			cur.leave(ctx)
			cancel()
		}
	})
	return nil
}

// Kill drops this process off the network at once, as a crash would (tests).
func (b *Bridge) Kill() {
	b.once.Do(func() {
		switch c := b.stop().(type) {
		case *Host:
			c.Kill()
		case *link:
			c.shut(1001, "killed")
			<-c.lost
		}
	})
}

// stop ends failover supervision and returns the backend to leave.
func (b *Bridge) stop() backend {
	b.cancel()
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.cur
	b.cur = nil
	return cur
}
