package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/testutil"
)

// binary is the studio-bridge executable built by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	flag.Parse()
	dir, err := os.MkdirTemp("", "studio-bridge-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if binary, err = testutil.BuildBinary(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "e2e: built %s in %s\n", binary, time.Since(start).Round(time.Millisecond))
	}
	return m.Run()
}

// buffer is an io.Writer safe to read while a process writes to it.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// proc is a studio-bridge process running in the background.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdout *buffer
	stderr *buffer
	done   chan struct{} // closed when the process has exited
	exited time.Time
	state  *os.ProcessState
}

// env is the environment for child processes: the test's, without any
// studio-bridge settings that would redirect them.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STUDIO_BRIDGE_") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// start runs studio-bridge with args in the background. The process is
// killed at cleanup; its output is logged if the test failed.
func start(t *testing.T, name string, extraEnv []string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, stdout: &buffer{}, stderr: &buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(binary, args...)
	p.cmd.Env = env(extraEnv...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		p.exited = time.Now()
		p.state = p.cmd.ProcessState
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("--- %s (%s) stderr:\n%s--- stdout:\n%s", p.name, strings.Join(args, " "), p.stderr.String(), p.stdout.String())
		}
	})
	return p
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// wait waits up to d for the process to exit and returns its exit code (-1
// when a signal ended it).
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.state.ExitCode()
	case <-time.After(d):
		t.Fatalf("%s still running after %s; stderr:\n%s", p.name, d, p.stderr.String())
		return 0
	}
}

// kill9 kills the process as a crash would and waits until it is gone.
func (p *proc) kill9(t *testing.T) time.Time {
	t.Helper()
	if err := syscall.Kill(p.pid(), syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", p.name, err)
	}
	killed := time.Now()
	p.wait(t, 5*time.Second)
	return killed
}

// serve starts `studio-bridge serve` on port and waits until it is up: as
// the host when wantHost, else as a standby client.
func serve(t *testing.T, name string, port int, wantHost bool) *proc {
	t.Helper()
	p := start(t, name, nil, "serve", "--port", strconv.Itoa(port), "--log-level", "info")
	want := "standing by"
	if wantHost {
		want = "host is serving"
	}
	waitFor(t, 10*time.Second, name+" to report "+strconv.Quote(want), func() bool {
		if !p.running() {
			t.Fatalf("%s exited early (%v); stderr:\n%s", name, p.state, p.stderr.String())
		}
		return strings.Contains(p.stderr.String(), want)
	})
	if wantHost {
		if h, err := health(port); err != nil || h.PID != p.pid() {
			t.Fatalf("%s prints it is the host, but /health answers %+v, %v", name, h, err)
		}
	} else if strings.Contains(p.stderr.String(), "host is serving") {
		t.Fatalf("%s is a host, want a standby:\n%s", name, p.stderr.String())
	}
	return p
}

// result is a finished one-shot command.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// run runs a one-shot studio-bridge command and waits for it (at most
// timeout).
func run(t *testing.T, timeout time.Duration, extraEnv []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = env(extraEnv...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(t0)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("studio-bridge %s: still running after %s\nstderr:\n%s", strings.Join(args, " "), timeout, r.stderr)
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("studio-bridge %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// sessionsJSON runs `sessions --json` as a new process and returns the list.
func sessionsJSON(t *testing.T, args ...string) []commands.SessionView {
	t.Helper()
	r := run(t, 15*time.Second, nil, append([]string{"sessions", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("sessions --json exited %d:\n%s", r.code, r.stderr)
	}
	var data commands.SessionsData
	if err := json.Unmarshal([]byte(r.stdout), &data); err != nil {
		t.Fatalf("sessions --json printed no JSON (%v):\n%s", err, r.stdout)
	}
	return data.Sessions
}

// freePort is a loopback port that was free a moment ago.
var freePort = testutil.FreePort

var httpClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Second}

// health asks the port's /health.
func health(port int) (bridge.Health, error) {
	resp, err := httpClient.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, protocol.PathHealth))
	if err != nil {
		return bridge.Health{}, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var h bridge.Health
	if err := json.Unmarshal(body, &h); err != nil {
		return bridge.Health{}, fmt.Errorf("GET /health = %s %q", resp.Status, body)
	}
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("GET /health = %s", resp.Status)
	}
	return h, nil
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeRetry is the plugins' reconnect schedule in these tests.
var fakeRetry = []time.Duration{100 * time.Millisecond}

// plugin is one fake Studio DataModel.
type plugin struct {
	*fakeplugin.Plugin
	name string // "A/edit"
	id   string // session id of its first welcome
	cfg  fakeplugin.Config
}

// handler answers, for a plugin called name:
//
//	echo       {"from": name, "echo": payload}
//	progress   two progress lines, a pause, then {"from": name, "success": true}
//	exec       nothing: it stalls until cancelled
func handler(name string) fakeplugin.Handler {
	return func(action string, payload json.RawMessage) fakeplugin.Reply {
		switch action {
		case "echo":
			return fakeplugin.Reply{Payload: map[string]any{"from": name, "echo": payload}}
		case "progress":
			return fakeplugin.Reply{Progress: []any{"line 1", "line 2"}, Delay: 700 * time.Millisecond,
				Payload: map[string]any{"from": name, "success": true}}
		case "exec":
			return fakeplugin.Reply{Stall: true}
		}
		return fakeplugin.Reply{Err: protocol.Errorf(protocol.CodeUnknownAction, "unknown action %s", action)}
	}
}

// startPlugin connects a fake plugin and waits for its welcome.
func startPlugin(t *testing.T, port int, instance string, ctx protocol.Context, state protocol.State) *plugin {
	t.Helper()
	name := instance + "/" + string(ctx)
	cfg := fakeplugin.Config{
		Port: port, InstanceID: instance, Context: ctx, State: state,
		PlaceName: "Place " + instance, PlaceID: 1000, GameID: 2000, PluginVersion: "0.1.0-dev",
		Capabilities: []string{"exec", "logs"}, Handler: handler(name), RetryDelays: fakeRetry,
	}
	p := &plugin{Plugin: fakeplugin.Start(cfg), name: name, cfg: cfg}
	t.Cleanup(p.Close)
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := p.WaitWelcome(wctx)
	if err != nil {
		t.Fatal(err)
	}
	p.id = id
	return p
}

// studio starts the standard fleet: instance A in Edit mode (one edit
// session) and instance B in Play mode (edit, server and client sessions).
func studio(t *testing.T, port int) []*plugin {
	t.Helper()
	return []*plugin{
		startPlugin(t, port, "A", protocol.ContextEdit, protocol.StateEdit),
		startPlugin(t, port, "B", protocol.ContextEdit, protocol.StatePlay),
		startPlugin(t, port, "B", protocol.ContextServer, protocol.StatePlay),
		startPlugin(t, port, "B", protocol.ContextClient, protocol.StatePlay),
	}
}

func byName(ps []*plugin, name string) *plugin {
	for _, p := range ps {
		if p.name == name {
			return p
		}
	}
	panic("no plugin " + name)
}

// sessionsMatch reports why list differs from the plugins' sessions (same
// ids, instances, contexts and states), or "" when it matches.
func sessionsMatch(list []protocol.SessionInfo, ps []*plugin) string {
	if len(list) != len(ps) {
		return fmt.Sprintf("%d sessions, want %d: %+v", len(list), len(ps), list)
	}
	byID := map[string]protocol.SessionInfo{}
	for _, s := range list {
		byID[s.SessionID] = s
	}
	for _, p := range ps {
		s, ok := byID[p.id]
		if !ok {
			return fmt.Sprintf("session %s (%s) missing from %+v", p.id, p.name, list)
		}
		if s.InstanceID != p.cfg.InstanceID || s.Context != p.cfg.Context || s.State != p.cfg.State ||
			s.PlaceName != p.cfg.PlaceName || s.PlaceID != p.cfg.PlaceID {
			return fmt.Sprintf("session %s is %s/%s %s %q %d, want %s %s %q %d", p.id, s.InstanceID, s.Context, s.State,
				s.PlaceName, s.PlaceID, p.name, p.cfg.State, p.cfg.PlaceName, p.cfg.PlaceID)
		}
	}
	return ""
}

func infos(views []commands.SessionView) []protocol.SessionInfo {
	out := make([]protocol.SessionInfo, len(views))
	for i, v := range views {
		out[i] = v.SessionInfo
	}
	return out
}

func netListen(port int) (net.Listener, error) {
	return net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
}
