package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// End-to-end runs under Studio's limits (test/emulator/README.md, "Studio's
// limits") with the real host and plugin protocol version 2: one stream per
// window carries every DataModel's session, sessions outlive the streams
// Studio drops, and scripts larger than a frame are sent in chunks.

var playContexts = []protocol.Context{protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient}

// TestPlayOverOneStream: with one WebStreamClient allowed for the whole
// window (and a client DataModel that cannot reach localhost), Play
// registers edit, server and client, and exec, logs, query and screenshot
// work in each.
func TestPlayOverOneStream(t *testing.T) {
	port, _, b := startWindow(t, "--play", "--max-streams", "1", "--instance", "E2E-ONE", "--quiet")
	got := waitSessions(t, b, "E2E-ONE", playContexts...)
	for _, c := range playContexts {
		id := got[c].SessionID
		var e execReply
		mustCall(t, b, id, "exec", map[string]any{"script": `print("exec in ` + string(c) + `") local rs = game:GetService("RunService") return rs:IsEdit(), rs:IsClient()`}, &e)
		wantEdit, wantClient := c == protocol.ContextEdit, c != protocol.ContextServer
		if !e.Success || string(e.ReturnValues[0]) != fmt.Sprint(wantEdit) || string(e.ReturnValues[1]) != fmt.Sprint(wantClient) {
			t.Fatalf("%s: exec ran in the wrong DataModel: %+v", c, e)
		}
		var logs logsReply
		mustCall(t, b, id, "logs", map[string]any{"count": 50}, &logs)
		found := false
		for _, l := range logs.Entries {
			found = found || l.Body == "exec in "+string(c)
		}
		if !found {
			t.Errorf("%s: logs miss the exec's line: %+v", c, logs.Entries)
		}
		var q struct{ Instance node }
		mustCall(t, b, id, "query", map[string]any{"path": "Workspace"}, &q)
		if q.Instance.Path != "game.Workspace" {
			t.Errorf("%s: query Workspace answered %+v", c, q)
		}
		r := call(t, b, id, "screenshot", map[string]any{})
		if c != protocol.ContextClient {
			wantCode(t, r, protocol.CodeScreenshotFailed) // in Play only the client renders
		} else {
			if r.err != nil {
				t.Fatalf("%s: screenshot: %v", c, r.err)
			}
			checkScreenshot(t, r)
		}
	}
	// with no --context, screenshot targets the DataModel that renders
	checkPNGScreenshot(t, port)
}

// TestStreamsDroppedUnderLoad: Studio drops every stream after 5 s; over
// half a minute of execs in all three DataModels nothing fails, the session
// ids never change, and a log subscription sees every line with continuous
// sequence numbers.
func TestStreamsDroppedUnderLoad(t *testing.T) {
	_, studio, b := startWindow(t, "--play", "--max-streams", "1", "--stream-lifetime", "5", "--instance", "E2E-LIFE")
	n, lines := execLoop(t, b, "E2E-LIFE", "loop", 30*time.Second)
	if !strings.Contains(studio.Stdout.String(), "lifetime of 5s is over") {
		t.Fatal("no stream reached its lifetime: the test proved nothing")
	}
	t.Logf("%d execs over 30 s, %d log lines", n, len(lines))
}

// execLoop runs execs for d, in turn in the edit, server and client
// DataModels of instance's window, exec n printing "<prefix> <n>" and
// returning n; each must succeed in the DataModel it was sent to. A log
// subscription on the edit session must see every edit exec's line, in
// order, with increasing sequence numbers, and the sessions must keep
// their ids throughout. It returns how many execs ran and the lines seen.
func execLoop(t *testing.T, b *bridge.Bridge, instance, prefix string, d time.Duration) (n int, lines []string) {
	t.Helper()
	first := waitSessions(t, b, instance, playContexts...)
	edit := first[protocol.ContextEdit].SessionID
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := b.Events(ctx, edit)
	mustCall(t, b, edit, "subscribe", map[string]any{"events": []string{"log"}}, nil)

	var seqs []int64
	collect := func(ev protocol.Event) {
		var l logLine
		if ev.Event == "log" && json.Unmarshal(ev.Payload, &l) == nil && strings.HasPrefix(l.Body, prefix+" ") {
			lines = append(lines, l.Body)
			seqs = append(seqs, ev.Seq)
		}
	}

	deadline := time.Now().Add(d)
	edits := 0
	for time.Now().Before(deadline) {
		for _, c := range playContexts {
			n++
			if c == protocol.ContextEdit {
				edits++
			}
			var e execReply
			r := call(t, b, first[c].SessionID, "exec", map[string]any{"script": fmt.Sprintf(`print("%s %d") return %d`, prefix, n, n)})
			if r.err != nil || json.Unmarshal(r.payload, &e) != nil || !e.Success || string(e.ReturnValues[0]) != fmt.Sprint(n) {
				t.Fatalf("exec %d in %s: %s %v", n, c, r.payload, r.err)
			}
		}
		for drained := false; !drained; {
			select {
			case ev := <-events:
				collect(ev)
			default:
				drained = true
			}
		}
	}

	timeout := time.After(10 * time.Second)
	for len(lines) < edits {
		select {
		case ev := <-events:
			collect(ev)
		case <-timeout:
			t.Fatalf("log subscription saw %d of %d lines: %v", len(lines), edits, lines)
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Fatalf("log sequence numbers not increasing: %v", seqs)
		}
	}
	for i, l := range lines {
		if want := fmt.Sprintf("%s %d", prefix, 1+i*len(playContexts)); l != want {
			t.Fatalf("log line %d is %q, want %q (lost or reordered)", i, l, want)
		}
	}
	after := waitSessions(t, b, instance, playContexts...)
	for _, c := range playContexts {
		if after[c].SessionID != first[c].SessionID {
			t.Errorf("%s: session id changed: %s -> %s", c, first[c].SessionID, after[c].SessionID)
		}
	}
	return n, lines
}

// TestFourMegabyteScript: a 4 MB script reaches the edit DataModel and a
// relayed server DataModel in chunks and runs.
func TestFourMegabyteScript(t *testing.T) {
	_, _, b := startWindow(t, "--play", "--instance", "E2E-BIG", "--quiet")
	got := waitSessions(t, b, "E2E-BIG", playContexts...)
	var sb strings.Builder
	sb.WriteString("local n = 0\n")
	line := `n += #"` + strings.Repeat("x", 60) + "\"\n"
	for sb.Len() < 4*1000*1000 {
		sb.WriteString(line)
	}
	sb.WriteString("return n\n")
	script := sb.String()
	lines := (len(script) - len("local n = 0\n") - len("return n\n")) / len(line)
	// The edit DataModel compiles with loadstring: the whole script runs.
	var e execReply
	mustCall(t, b, got[protocol.ContextEdit].SessionID, "exec", map[string]any{"script": script}, &e)
	if !e.Success || string(e.ReturnValues[0]) != fmt.Sprint(lines*60) {
		t.Fatalf("edit: 4 MB script: %+v", e)
	}
	// The server has no loadstring: a ModuleScript's Source holds at most
	// 200,000 characters in Studio, so the plugin refuses clearly (#25 item 1).
	e = execReply{}
	mustCall(t, b, got[protocol.ContextServer].SessionID, "exec", map[string]any{"script": script}, &e)
	if e.Success || !strings.Contains(e.Error, "too large to run without loadstring (Studio's 200,000-character Source limit") {
		t.Fatalf("server: 4 MB script: %+v; want the Source-limit error", e)
	}
}

// TestSocketRenewedBeforeItsLifetime: the plugin renews its socket before
// Studio's stream lifetime ends (here every 3 s instead of 25 minutes).
// With room for a second stream the renewal is make-before-break
// (PROTOCOL.md 12.12): the host moves the sessions from socket to socket and
// never holds one in its resume grace. With --max-streams 1 it is
// break-then-make and the grace covers the gap. Either way an exec loop in
// all three DataModels never fails, the session ids stay, and a log
// subscription sees every line in order.
func TestSocketRenewedBeforeItsLifetime(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		wantGrace bool // the host held sessions in its grace
	}{
		{name: "make-before-break", args: nil, wantGrace: false},
		{name: "break-then-make with one stream", args: []string{"--max-streams", "1"}, wantGrace: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireSetup(t)
			port := kit.FreePort(t)
			serve := startServe(t, "serve", port)
			args := append([]string{"--play", "--instance", "E2E-RENEW", "--quiet", "--setting", "RefreshSeconds=3"}, tc.args...)
			kit.Studio(t, "studio", port, args...)
			b := connect(t, port)
			n, lines := execLoop(t, b, "E2E-RENEW", "renew", 10*time.Second)

			log := serve.Stdout.String()
			if got := strings.Count(log, "plugin socket connected"); got < 3 {
				t.Fatalf("the socket was opened %d times in 10 s; want a renewal every 3 s", got)
			}
			if got := strings.Count(log, "plugin session resumed"); got < 2*len(playContexts) {
				t.Fatalf("sessions resumed %d times; want every session moved at least twice", got)
			}
			held := strings.Count(log, "holding it and its calls for the resume grace")
			if tc.wantGrace && held == 0 {
				t.Fatal("with one stream allowed the renewal never left the sessions in the grace: it cannot have been break-then-make")
			}
			if goodbyes := strings.Count(log, "plugin closing its socket"); !tc.wantGrace && goodbyes < 2 {
				t.Fatalf("the plugin said goodbye on %d renewed sockets; want every old socket retired with goodbye once its sessions moved", goodbyes)
			}
			if !tc.wantGrace && held != 0 {
				t.Fatalf("the host held sessions in its resume grace %d times: the renewal was not make-before-break", held)
			}
			t.Logf("%d execs over 10 s, %d log lines, %d sessions held in the grace", n, len(lines), held)
		})
	}
}
