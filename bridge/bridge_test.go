package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestHostAndClientSeeSessionsAndRelayCalls(t *testing.T) {
	t.Parallel()
	port, host, client := hostAndClient(t)
	big := strings.Repeat("é", 300_000)
	_, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", PlaceName: "Place", Handler: func(action string, payload json.RawMessage) fakeplugin.Reply {
		switch action {
		case "exec":
			return fakeplugin.Reply{Progress: []any{"line 1", "line 2"}, Payload: map[string]any{"success": true}}
		case "big":
			return fakeplugin.Reply{Payload: big, ChunkSize: protocol.MaxChunkBytes}
		case "fail":
			return fakeplugin.Reply{Err: protocol.Errorf(protocol.CodeInstanceNotFound, "No instance found at path: game.Nope")}
		}
		return fakeplugin.Reply{Payload: action}
	}})
	for _, b := range []*Bridge{host, client} {
		s := waitSessions(t, b, 1)
		if s[0].SessionID != sid || s[0].InstanceID != "A" || s[0].PlaceName != "Place" {
			t.Fatalf("session: %+v", s[0])
		}
	}
	for name, b := range map[string]*Bridge{"host": host, "client": client} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var lines []string
			out, err := b.Call(context.Background(), sid, "exec", json.RawMessage(`{"source":"print(1)"}`), CallOptions{OnProgress: func(p json.RawMessage) {
				mu.Lock()
				lines = append(lines, string(p))
				mu.Unlock()
			}})
			if err != nil || string(out) != `{"success":true}` {
				t.Fatalf("exec: %s, %v", out, err)
			}
			if strings.Join(lines, ",") != `"line 1","line 2"` {
				t.Fatalf("progress: %v", lines)
			}
			out, err = b.Call(context.Background(), sid, "big", nil, CallOptions{})
			var got string
			if err != nil || json.Unmarshal(out, &got) != nil || got != big {
				t.Fatalf("chunked: len %d, %v", len(out), err)
			}
			_, err = b.Call(context.Background(), sid, "fail", nil, CallOptions{})
			if protocol.CodeOf(err) != protocol.CodeInstanceNotFound || err.Error() != "No instance found at path: game.Nope" {
				t.Fatalf("typed error lost: %v", err)
			}
			_, err = b.Call(context.Background(), "nope", "state", nil, CallOptions{})
			if protocol.CodeOf(err) != protocol.CodeSessionNotFound {
				t.Fatalf("unknown session: %v", err)
			}
		})
	}
}

func TestTimeoutCancelsAtThePlugin(t *testing.T) {
	t.Parallel()
	port, host, client := hostAndClient(t)
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(string, json.RawMessage) fakeplugin.Reply {
		return fakeplugin.Reply{Stall: true}
	}})
	waitSessions(t, client, 1)
	for _, b := range []*Bridge{host, client} {
		// The call's own timeout ends it (TIMEOUT says so), and the
		// plugin is told to stop (below).
		_, err := b.Call(context.Background(), sid, "state", nil, CallOptions{Timeout: 200 * time.Millisecond})
		if protocol.CodeOf(err) != protocol.CodeTimeout {
			t.Fatalf("want TIMEOUT, got %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(p.Cancels()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(p.Cancels()) < 2 {
		t.Fatalf("plugin saw %d cancels, want 2", len(p.Cancels()))
	}
}

// A call whose caller gives up says why in words ("interrupted", "ran out
// of time"), not Go's "context canceled".
func TestCancelledCallSaysWhy(t *testing.T) {
	t.Parallel()
	port, host, client := hostAndClient(t)
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(string, json.RawMessage) fakeplugin.Reply {
		return fakeplugin.Reply{Stall: true}
	}})
	waitSessions(t, client, 1)
	for _, b := range []*Bridge{host, client} {
		before := len(p.Requests())
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for len(p.Requests()) == before && ctx.Err() == nil { // until the request reached the plugin
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		_, err := b.Call(ctx, sid, "exec", nil, CallOptions{Timeout: time.Minute})
		cancel()
		if protocol.CodeOf(err) != protocol.CodeCancelled || err.Error() != "exec cancelled before Studio answered: interrupted (Ctrl-C, or the caller gave up); Studio was asked to stop it" {
			t.Fatalf("interrupted: %v", err)
		}
	}
	if got := cancelledMessage("exec", context.DeadlineExceeded); got != "exec cancelled before Studio answered: the command ran out of time; Studio was asked to stop it" {
		t.Fatalf("out of time: %q", got)
	}
}

// TestPluginVanishingMidRequest: a plugin whose socket drops mid-request
// may come back within the resume grace (PROTOCOL.md 12.7), so the host
// holds its session, still listed, and the relayed call waits for it: here
// until the call's own timeout, which is what the caller hears.
func TestPluginVanishingMidRequest(t *testing.T) {
	t.Parallel()
	port, host, client := hostAndClient(t)
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", NoReconnect: true, Handler: func(string, json.RawMessage) fakeplugin.Reply {
		return fakeplugin.Reply{Drop: true}
	}})
	waitSessions(t, client, 1)
	_, err := client.Call(context.Background(), sid, "exec", nil, CallOptions{Timeout: 300 * time.Millisecond})
	if protocol.CodeOf(err) != protocol.CodeTimeout {
		t.Fatalf("want TIMEOUT, got %v", err)
	}
	if got := p.CloseStatus(); got != -1 {
		t.Fatalf("the plugin's socket ended with close status %d, want an abrupt drop", got)
	}
	for name, b := range map[string]*Bridge{"host": host, "client": client} {
		if _, ok := b.hub.get(sid); !ok {
			t.Fatalf("the %s no longer lists the held session", name)
		}
	}
}

func TestFailoverKeepsSessionsAndFailsInFlight(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	host := connect(t, port)
	c1 := connect(t, port)
	c2 := connect(t, port)
	release := make(chan struct{})
	defer close(release)
	var once sync.Once
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(action string, _ json.RawMessage) fakeplugin.Reply {
		if action == "exec" {
			return fakeplugin.Reply{Stall: true}
		}
		return fakeplugin.Reply{Payload: "ok"}
	}})
	waitSessions(t, c1, 1)
	waitSessions(t, c2, 1)

	errc := make(chan error, 1)
	go func() {
		_, err := c1.Call(context.Background(), sid, "exec", nil, CallOptions{Timeout: time.Minute})
		errc <- err
	}()
	kit.WaitFor(t, 10*time.Second, "the exec to reach the plugin", func() bool {
		for _, r := range p.Requests() {
			if r.Action == "exec" {
				return true
			}
		}
		return false
	})
	once.Do(host.Kill)
	if err := kit.Recv(t, errc, 5*time.Second, "the in-flight call to end after the host died"); protocol.CodeOf(err) != protocol.CodeUnknownOutcome {
		t.Fatalf("in-flight call: want UNKNOWN_OUTCOME, got %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r1, r2 := c1.Role(), c2.Role()
		if (r1 == RoleHost) != (r2 == RoleHost) && r1 != RoleNone && r2 != RoleNone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("roles after failover: %s, %s", r1, r2)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Served again: a call by the old session id succeeds (how soon is
	// measured by the failover benchmark, not asserted here).
	kit.WaitFor(t, 10*time.Second, "the plugin to be served again by its old session id", func() bool {
		out, err := c2.Call(context.Background(), sid, "state", nil, CallOptions{Timeout: time.Second})
		return err == nil && string(out) == `"ok"`
	})
	for _, b := range []*Bridge{c1, c2} {
		s := waitSessions(t, b, 1)
		if s[0].SessionID != sid {
			t.Fatalf("session id changed across failover: %s → %s", sid, s[0].SessionID)
		}
	}
}

func TestGracefulHandOff(t *testing.T) {
	t.Parallel()
	port, host, client := hostAndClient(t)
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A"})
	waitSessions(t, client, 1)
	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for client.Role() != RoleHost {
		if time.Now().After(deadline) {
			t.Fatalf("the client did not take the host over: role %s", client.Role())
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := waitSessions(t, client, 1)
	if s[0].SessionID != sid {
		t.Fatalf("after hand-off: sessions %+v, want %s", s, sid)
	}
	if g := p.Goodbyes(); len(g) != 1 {
		t.Fatalf("plugin goodbyes: %v", g)
	}
}

// TestHandOffWaitsForRelayedCalls: a host asked to stop while it relays an
// exec keeps the port until the exec is answered (/health says "draining"
// with 503 meanwhile); a call another client makes in the meantime, refused
// with SHUTTING_DOWN, and a process that starts meanwhile both wait for the
// new host rather than fail.
func TestHandOffWaitsForRelayedCalls(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	host := connect(t, port)
	c1 := connect(t, port)
	c2 := connect(t, port)
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseExec := func() { releaseOnce.Do(func() { close(release) }) }
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(action string, _ json.RawMessage) fakeplugin.Reply {
		if action == "exec" {
			<-release
			return fakeplugin.Reply{Payload: "done"}
		}
		return fakeplugin.Reply{Payload: "ok"}
	}})
	t.Cleanup(releaseExec) // runs before the plugin's Close, which waits for its handlers
	waitSessions(t, c2, 1)

	execc := make(chan error, 1)
	go func() {
		out, err := c1.Call(context.Background(), sid, "exec", nil, CallOptions{Timeout: time.Minute})
		if err == nil && string(out) != `"done"` {
			err = fmt.Errorf("exec answered %s", out)
		}
		execc <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); len(p.Requests()) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the exec never reached the plugin")
		}
		time.Sleep(5 * time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- host.Close() }()

	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, protocol.PathHealth))
		if err != nil {
			t.Fatal(err)
		}
		var h Health
		_ = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			if h.Status != "draining" || h.Service != protocol.ServiceName {
				t.Fatalf("/health while draining: %+v", h)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/health still answers %d during the hand-off", resp.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}

	statec := make(chan error, 1)
	go func() {
		out, err := c2.Call(context.Background(), sid, "state", nil, CallOptions{Timeout: 5 * time.Second})
		if err == nil && string(out) != `"ok"` {
			err = fmt.Errorf("state answered %s", out)
		}
		statec <- err
	}()
	type joined struct {
		b   *Bridge
		err error
	}
	joinc := make(chan joined, 1)
	go func() {
		b, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Log: testLog(t), Grace: testGrace, JoinTimeout: 200 * time.Millisecond})
		joinc <- joined{b, err}
	}()
	time.Sleep(500 * time.Millisecond) // longer than the joiner's JoinTimeout
	select {
	case err := <-statec:
		t.Fatalf("state during the hand-off returned before the host changed: %v", err)
	case j := <-joinc:
		t.Fatalf("a process starting during the hand-off returned before the host changed: %v", j.err)
	case err := <-closed:
		t.Fatalf("the host stopped before its relayed exec was answered: %v", err)
	default:
	}

	releaseExec()
	for name, c := range map[string]chan error{"exec relayed by the leaving host": execc, "state sent during the hand-off": statec, "host.Close": closed} {
		if err := kit.Recv(t, c, 10*time.Second, name+" to end after the exec finished"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	j := kit.Recv(t, joinc, 10*time.Second, "a process starting during the hand-off to join")
	if j.err != nil {
		t.Fatalf("a process starting during the hand-off: %v", j.err)
	}
	defer j.b.Kill()
	waitSessions(t, j.b, 1)
}

func TestResolveWaitsForPluginsOnAFreshHost(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	b := connect(t, port)
	time.AfterFunc(100*time.Millisecond, func() {
		p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "A"})
		t.Cleanup(p.Close)
	})
	s, err := b.Resolve(context.Background(), Target{})
	if err != nil || s.InstanceID != "A" {
		t.Fatalf("resolve: %+v %v", s, err)
	}
}

func TestEventsReachWatchers(t *testing.T) {
	t.Parallel()
	port, host, client := hostAndClient(t)
	p, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A"})
	waitSessions(t, client, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hostEv := host.Events(ctx, sid)
	clientEv := client.Events(ctx, sid)
	watch := client.WatchSessions(ctx)
	kit.WaitFor(t, 10*time.Second, "the client's watch to reach the host", func() bool {
		host.mu.Lock()
		h, _ := host.cur.(*Host)
		host.mu.Unlock()
		if h == nil {
			return false
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.watching[sid]) > 0
	})
	if err := p.SendLog(1, "Print", "hi"); err != nil {
		t.Fatal(err)
	}
	if err := p.Send(protocol.Event{SessionID: sid, Event: "state", Payload: json.RawMessage(`{"state":"Play"}`)}); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]<-chan protocol.Event{"host": hostEv, "client": clientEv} {
		for _, want := range []string{"log", "state"} {
			if ev := kit.Recv(t, ch, 5*time.Second, name+"'s "+want+" event"); ev.Event != want || ev.SessionID != sid {
				t.Fatalf("%s: got %+v, want %s", name, ev, want)
			}
		}
	}
	if ev := kit.Recv(t, watch, 5*time.Second, "a session update"); ev.Kind != protocol.SessionUpdated || ev.Session.State != protocol.StatePlay {
		t.Fatalf("session event: %+v", ev)
	}
}

func TestStrangerOnThePort(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	srv := kit.Stranger(t, port)
	defer srv.Close()
	_, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Log: testLog(t)})
	var pe *PortInUseError
	if !errors.As(err, &pe) {
		t.Fatalf("want PortInUseError, got %v", err)
	}
	for _, want := range []string{"port", "--port", "STUDIO_BRIDGE_PORT", "not a studio-bridge host"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestLazyConnectWaitsForTheHost: a lazy process whose --remote host is not
// up yet starts anyway, reports the host unavailable, and joins once the host
// comes.
func TestLazyConnectWaitsForTheHost(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	remote := "127.0.0.1:" + strconv.Itoa(port)
	if _, err := Connect(context.Background(), Options{Token: kit.Token(t), Remote: remote, JoinTimeout: 200 * time.Millisecond}); protocol.CodeOf(err) != protocol.CodeHostUnavailable {
		t.Fatalf("an eager connect must fail at once: %v", err)
	}
	lazy, err := Connect(context.Background(), Options{Token: kit.Token(t), Remote: remote, JoinTimeout: 200 * time.Millisecond, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	if lazy.Role() != RoleNone {
		t.Fatalf("role %s before any host", lazy.Role())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = lazy.Sessions(ctx)
	cancel()
	if protocol.CodeOf(err) != protocol.CodeHostUnavailable {
		t.Fatalf("sessions with no host: %v", err)
	}

	host, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Grace: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Kill()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := lazy.Sessions(ctx); err != nil {
		t.Fatalf("sessions once the host is up: %v", err)
	}
	if lazy.Role() != RoleClient {
		t.Fatalf("role %s, want client", lazy.Role())
	}
}

// TestHostWarnsAboutAnOlderPlugin: a plugin older than the one the binary
// installs gets a warning that says how to update it; a current, newer or unversioned one
// does not.
func TestHostWarnsAboutAnOlderPlugin(t *testing.T) {
	t.Parallel()
	var logs kit.Buffer
	port := kit.FreePort(t)
	host, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Version: "9.9.9", PluginVersion: "1.2.0", Grace: time.Millisecond,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Kill()
	for _, v := range []string{"1.2.0", "1.3.0", "dev", "1.1.9"} {
		p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "v" + v, PluginVersion: v})
		defer p.Close()
		if _, err := p.WaitWelcome(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "plugin=1.1.9") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := logs.String()
	if strings.Count(got, "plugin is older than the one this studio-bridge installs") != 1 || !strings.Contains(got, "plugin=1.1.9") ||
		!strings.Contains(got, "studio-bridge install-plugin") {
		t.Fatalf("want one warning, for 1.1.9:\n%s", got)
	}
}

// TestCallAfterFailoverWaitsForThePlugin: right after a failover the new
// host does not know the plugins yet; a call naming one of them waits for it
// to re-register (within the grace) instead of failing "Session not found".
func TestCallAfterFailoverWaitsForThePlugin(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	host, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Kill()
	p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "A", Handler: fakeplugin.Studio,
		RetryDelays: []time.Duration{100 * time.Millisecond}})
	defer p.Close()
	sid, err := p.WaitWelcome(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	client, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	host.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for client.Role() != RoleHost { // the client takes over before the plugin's retry
		if ctx.Err() != nil {
			t.Fatal("the client never took over")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := client.Call(ctx, sid, "state", nil, CallOptions{}); err != nil {
		t.Fatalf("call right after the failover: %v", err)
	}
	if _, err := client.Call(ctx, "no-such-session", "state", nil, CallOptions{}); protocol.CodeOf(err) != protocol.CodeSessionNotFound {
		t.Fatalf("an unknown session is still unknown after the grace: %v", err)
	}
}

// TestGraceEndsWhenTheLostHostsSessionsReturn: after a failover the new
// host's resolution grace ends as soon as every session the old host had
// is back, rather than after the full grace.
func TestGraceEndsWhenTheLostHostsSessionsReturn(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	host := connect(t, port)
	// A grace of an hour: a Sessions call that answers at all proves it
	// was cut short.
	c := connectWith(t, port, Options{Grace: time.Hour})
	kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A"})
	kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "B"})
	waitSessions(t, host, 2)
	for len(c.hub.ids()) != 2 { // c's mirror; its own Sessions would wait out its grace
		time.Sleep(5 * time.Millisecond)
	}

	killed := time.Now()
	host.Kill()
	for c.Role() == RoleClient || c.Role() == RoleNone { // c is the only one left: it takes over
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("no takeover: role %s", c.Role())
		}
		time.Sleep(5 * time.Millisecond)
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := c.Sessions(sctx)
	if err != nil || len(s) != 2 {
		t.Fatalf("after the takeover: %d sessions, %v (an error after a minute: the hour's grace was not cut short)", len(s), err)
	}
	if _, err := c.Resolve(context.Background(), Target{}); err == nil || !strings.Contains(err.Error(), "Multiple Studio instances") {
		t.Fatalf("resolve over both windows: %v", err)
	}
}
