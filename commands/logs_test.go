package commands

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// logBuffer is a plugin's log buffer as the plugin contract describes it:
// every captured line gets the next sequence number, and logs answers the
// matching lines oldest first.
type logBuffer struct {
	mu    sync.Mutex
	lines []Line
}

func (b *logBuffer) add(level, body string) Line {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := Line{Level: level, Body: body, Seq: int64(len(b.lines) + 1)}
	b.lines = append(b.lines, l)
	return l
}

func (b *logBuffer) handler(action string, payload json.RawMessage) fakeplugin.Reply {
	if action != "logs" {
		return fakeplugin.Studio(action, payload)
	}
	var req actions.LogsRequest
	_ = json.Unmarshal(payload, &req)
	b.mu.Lock()
	defer b.mu.Unlock()
	var match []Line
	for _, l := range b.lines {
		if (req.IncludeInternal || !strings.HasPrefix(l.Body, internalPrefix)) &&
			(len(req.Levels) == 0 || contains(req.Levels, l.Level)) {
			match = append(match, l)
		}
	}
	if len(match) > req.Count {
		match = match[len(match)-req.Count:]
	}
	return fakeplugin.Reply{Payload: LogsData{Entries: match, Total: len(match), BufferCapacity: 2000}}
}

// sendLine logs a line in the plugin and streams it as a live event.
func sendLine(t *testing.T, p *fakeplugin.Plugin, l Line) {
	t.Helper()
	raw, _ := json.Marshal(l)
	if err := p.Send(protocol.Event{SessionID: p.SessionID(), Event: "log", Seq: l.Seq, Payload: raw}); err != nil {
		t.Fatal(err)
	}
}

// follower runs logs --follow in the background and collects the bodies
// of its lines.
type follower struct {
	mu     sync.Mutex
	bodies []string
	done   chan error
	stop   context.CancelFunc
}

func startFollow(t *testing.T, b bridge.Conn, args *LogsArgs) *follower {
	t.Helper()
	s, err := b.Resolve(context.Background(), bridge.Target{})
	if err != nil {
		t.Fatal(err)
	}
	f := &follower{done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	f.stop = cancel
	args.Follow = true
	env := &Env{Command: Logs, Bridge: b, Session: s, Timeout: Logs.Timeout, Log: slog.New(slog.DiscardHandler),
		Output: func(l Line) {
			f.mu.Lock()
			f.bodies = append(f.bodies, l.Body)
			f.mu.Unlock()
		}}
	go func() {
		_, err := Logs.run(ctx, env, args)
		f.done <- err
	}()
	t.Cleanup(func() { f.end(t) })
	return f
}

// shown is what the follower printed so far, line bodies joined by "|".
func (f *follower) shown() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.bodies, "|")
}

// waitFor waits until the follower has printed want, exactly.
func (f *follower) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if f.shown() == strings.Join(want, "|") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("follow printed %q, want %q", f.shown(), strings.Join(want, "|"))
}

func (f *follower) end(t *testing.T) {
	t.Helper()
	if f.stop == nil {
		return
	}
	f.stop()
	f.stop = nil
	select {
	case err := <-f.done:
		if err != nil {
			t.Errorf("follow ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("follow did not end after its context was cancelled")
	}
}

func subscribes(p *fakeplugin.Plugin) []protocol.Request {
	var out []protocol.Request
	for _, r := range p.Requests() {
		if r.Action == "subscribe" {
			out = append(out, r)
		}
	}
	return out
}

func waitSubscribes(t *testing.T, p *fakeplugin.Plugin, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(subscribes(p)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("plugin saw %d subscribe requests, want %d", len(subscribes(p)), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestFollowLogs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args LogsArgs
		// snapshot is what follow prints first; live what it prints of the
		// live lines "live one", an internal line, "live two" and, after
		// two lines the follower never sees, "after the gap".
		snapshot, live []string
	}{
		{"defaults", LogsArgs{Count: 50},
			[]string{"hello", "careful"},
			[]string{"live one", "live two", "[StudioBridge] 2 log lines were lost before reaching this terminal", "after the gap"}},
		{"count", LogsArgs{Count: 1},
			[]string{"careful"},
			[]string{"live one", "live two", "[StudioBridge] 2 log lines were lost before reaching this terminal", "after the gap"}},
		{"levels", LogsArgs{Count: 50, Levels: []string{"Warning"}},
			[]string{"careful"},
			[]string{"[StudioBridge] 2 log lines were lost before reaching this terminal"}},
		{"internal", LogsArgs{Count: 50, IncludeInternal: true},
			[]string{"hello", "[StudioBridge] connected", "careful"},
			[]string{"live one", "[StudioBridge] reconnecting", "live two", "[StudioBridge] 2 log lines were lost before reaching this terminal", "after the gap"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			port := kit.FreePort(t)
			b := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 200 * time.Millisecond})
			defer b.Kill()
			var buf logBuffer
			buf.add("Print", "hello")
			buf.add("Print", "[StudioBridge] connected")
			buf.add("Warning", "careful")
			p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "A", Handler: buf.handler, RetryDelays: []time.Duration{20 * time.Millisecond}})
			defer p.Close()

			args := tc.args
			f := startFollow(t, b, &args)
			f.waitFor(t, tc.snapshot...)
			if sub := subscribes(p); len(sub) != 1 || !strings.Contains(string(sub[0].Payload), `"includeInternal":true`) {
				t.Fatalf("follow must subscribe once to every line, internal ones too: %+v", sub)
			}
			sendLine(t, p, Line{Level: "Warning", Body: "careful", Seq: 3}) // already printed
			for _, body := range []string{"live one", "[StudioBridge] reconnecting", "live two"} {
				sendLine(t, p, buf.add("Print", body))
			}
			buf.add("Print", "lost one")
			buf.add("Print", "lost two")
			sendLine(t, p, buf.add("Print", "after the gap"))
			f.waitFor(t, append(tc.snapshot, tc.live...)...)
			f.end(t)
			for _, r := range p.Requests() {
				if r.Action == "unsubscribe" && string(r.Payload) == string(subscribes(p)[0].Payload) {
					return
				}
			}
			t.Fatalf("follow must unsubscribe as it subscribed: %+v", p.Requests())
		})
	}
}

// TestFollowLogsAcrossFailover: the host dies, the following process takes
// over, the plugin reconnects (forgetting its subscriptions), and follow
// subscribes again and prints what was logged meanwhile, in order, once.
func TestFollowLogsAcrossFailover(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	host := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 200 * time.Millisecond})
	defer host.Kill()
	var buf logBuffer
	buf.add("Print", "before")
	p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "A", Handler: buf.handler, RetryDelays: []time.Duration{20 * time.Millisecond}})
	defer p.Close()
	sid, err := p.WaitWelcome(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	client := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 200 * time.Millisecond})
	defer client.Close()

	f := startFollow(t, client, &LogsArgs{Count: 50})
	f.waitFor(t, "before")
	sendLine(t, p, buf.add("Print", "live before"))
	f.waitFor(t, "before", "live before")

	host.Kill()
	buf.add("Print", "while reconnecting") // logged with nobody subscribed
	waitSubscribes(t, p, 2)
	if got, _ := client.Resolve(context.Background(), bridge.Target{}); got.SessionID != sid {
		t.Fatalf("the plugin came back as %q, want its old session %q", got.SessionID, sid)
	}
	sendLine(t, p, buf.add("Print", "live after"))
	f.waitFor(t, "before", "live before", "while reconnecting", "live after")
}

func TestRenderLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   Line
		want string
	}{
		{Line{Level: "Print", Body: "hi"}, "hi\n"},
		{Line{Body: "hi"}, "hi\n"},
		{Line{Level: "Warning", Body: "careful"}, "[Warning] careful\n"},
		{Line{Level: "Print", Body: "xxx", Truncated: true, Bytes: 2097153}, "xxx … [cut by the plugin: the line had 2097153 bytes]\n"},
		{Line{Level: "Error", Body: "e", Truncated: true, Bytes: 70000}, "[Error] e … [cut by the plugin: the line had 70000 bytes]\n"},
	} {
		if got := RenderLine(tc.in); got != tc.want {
			t.Errorf("RenderLine(%+v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A client's copy of a server line (same level and body, stamped within
// MirrorSkew) is left out, once per server line; the client's own lines,
// and copies too far apart in time, stay.
func TestDropMirrored(t *testing.T) {
	server := []Line{{Level: "Print", Body: "s", Timestamp: 1000}, {Level: "Warning", Body: "w", Timestamp: 2000}}
	for _, tc := range []struct {
		name   string
		client []Line
		want   []string
	}{
		{"mirrored", []Line{{Level: "Print", Body: "s", Timestamp: 1100}, {Level: "Print", Body: "c", Timestamp: 1200}}, []string{"c"}},
		{"printed twice, mirrored once", []Line{{Level: "Print", Body: "s", Timestamp: 1000}, {Level: "Print", Body: "s", Timestamp: 1500}}, []string{"s"}},
		{"another level", []Line{{Level: "Print", Body: "w", Timestamp: 2000}}, []string{"w"}},
		{"too far apart", []Line{{Level: "Print", Body: "s", Timestamp: 1000 + 3*MirrorSkew}}, []string{"s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range dropMirrored(tc.client, server) {
				got = append(got, l.Body)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("dropMirrored = %q; want %q", got, tc.want)
			}
		})
	}
}
