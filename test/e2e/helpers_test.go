package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestMain(m *testing.M) { kit.Main(m) }

// proc is a studio-bridge process running in the background.
type proc = kit.Proc

// start runs studio-bridge with args in the background, in the test's
// child environment plus extraEnv. It is stopped at cleanup; its output is
// logged if the test failed.
func start(t *testing.T, name string, extraEnv []string, args ...string) *proc {
	t.Helper()
	return kit.Start(t, name, kit.Options{Env: extraEnv}, kit.Binary(t), args...)
}

// serveHost starts the host on a fresh port: the process and its port.
func serveHost(t *testing.T) (*proc, int) {
	t.Helper()
	port := kit.FreePort(t)
	return serve(t, "host", port, true), port
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
	kit.WaitFor(t, 10*time.Second, name+" to report "+strconv.Quote(want), func() bool {
		if !p.Running() {
			t.Fatalf("%s exited early (%v); stderr:\n%s", name, p.State, p.Stderr.String())
		}
		return strings.Contains(p.Stderr.String(), want)
	})
	if wantHost {
		if h, err := kit.Health[bridge.Health](port); err != nil || h.PID != p.PID() {
			t.Fatalf("%s prints it is the host, but /health answers %+v, %v", name, h, err)
		}
	} else if strings.Contains(p.Stderr.String(), "host is serving") {
		t.Fatalf("%s is a host, want a standby:\n%s", name, p.Stderr.String())
	}
	return p
}

// run runs a one-shot studio-bridge command and waits for it (at most
// timeout).
func run(t *testing.T, timeout time.Duration, extraEnv []string, args ...string) kit.Result {
	t.Helper()
	return kit.Run(t, timeout, kit.Options{Env: extraEnv}, kit.Binary(t), args...)
}

// sessionsJSON runs `sessions --json` as a new process and returns the list.
func sessionsJSON(t *testing.T, args ...string) []commands.SessionView {
	t.Helper()
	return sessionsOf(t, run(t, 15*time.Second, nil, append([]string{"sessions", "--json"}, args...)...))
}

// sessionsOf is the list a finished `sessions --json` printed. It fails t
// unless the command succeeded and printed one.
func sessionsOf(t *testing.T, r kit.Result) []commands.SessionView {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("sessions --json exited %d:\n%s", r.Code, r.Stderr)
	}
	var data commands.SessionsData
	if err := json.Unmarshal([]byte(r.Stdout), &data); err != nil {
		t.Fatalf("sessions --json printed no JSON (%v):\n%s", err, r.Stdout)
	}
	return data.Sessions
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
	fp, id := kit.Plugin(t, cfg)
	return &plugin{Plugin: fp, name: name, id: id, cfg: cfg}
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

// hostWithStandbys starts a host on port, n standby serve processes joined
// to it as clients and studio's four plugins, and waits (at most 5 s) until
// the host has them all.
func hostWithStandbys(t *testing.T, port, n int) (host *proc, standbys []*proc, ps []*plugin) {
	t.Helper()
	host = serve(t, "host", port, true)
	for i := range n {
		name := "standby"
		if n > 1 {
			name = fmt.Sprintf("standby-%d", i+1)
		}
		standbys = append(standbys, serve(t, name, port, false))
	}
	ps = studio(t, port)
	kit.WaitHealth(t, port, 5*time.Second, fmt.Sprintf("%d clients and 4 sessions on the host", n), func(h bridge.Health) bool {
		return h.Sessions == 4 && h.Clients == n
	})
	return host, standbys, ps
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
