package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/ptytest"
)

// TestMain runs the tests in a config directory of their own, under goleak.
func TestMain(m *testing.M) { kit.MainInConfigDir(m) }

// freePort is a free loopback port for the test's bridge; the terminals
// the test runs in-process on it are given the test's config directory
// and token (testAuth), as the CLI gives them the user's.
func freePort(t *testing.T) string {
	t.Helper()
	port := strconv.Itoa(kit.FreePort(t))
	testAuth.Store(port, authtoken.InDir(kit.ConfigDir(t)))
	t.Cleanup(func() { testAuth.Delete(port) })
	return port
}

// testAuth maps a test's port (freePort) to its config directory's
// authtoken.Settings, which runTerminal gives the bridge and the terminal.
var testAuth sync.Map

// testGrace is the resolution grace of the terminals' bridges: the fake
// plugins retry every 50 ms (kit.FastRetry), not every 2 s as the real
// plugin searches, so waiting the 3 s default for late ones only slows
// the tests down.
const testGrace = 500 * time.Millisecond

// runTerminal runs the terminal on the bridge at port, as `studio-bridge
// --port PORT terminal` does: attached where exec runs scripts, unless
// opts.Target says otherwise.
func runTerminal(ctx context.Context, port string, opts Options) error {
	n, _ := strconv.Atoi(port)
	a, ok := testAuth.Load(port)
	if !ok {
		return fmt.Errorf("port %s is not the test's (freePort)", port)
	}
	opts.Auth = a.(authtoken.Settings)
	tok, err := opts.Auth.Resolve()
	if err != nil {
		return err
	}
	b, err := bridge.Connect(ctx, bridge.Options{Port: n, Version: "test", Token: tok, Grace: testGrace})
	if err != nil {
		return err
	}
	defer b.Close()
	opts.Conn, opts.Version = b, "test"
	if opts.Target.DefaultContext == "" {
		opts.Target.DefaultContext = commands.Exec.DefaultContext
	}
	return Run(ctx, opts)
}

// studioPort is a free port with a Studio-like fake plugin (kit.FakeStudio)
// waiting for the bridge the test starts there.
func studioPort(t *testing.T) string {
	t.Helper()
	port := freePort(t)
	n, _ := strconv.Atoi(port)
	studios.Store(port, kit.FakeStudio(t, n))
	t.Cleanup(func() { studios.Delete(port) })
	return port
}

// studios maps a studioPort to its fake Studio, whose requests a test
// waits for (ran) instead of sleeping.
var studios sync.Map // port → *fakeplugin.Plugin

// ran waits until the fake Studio on port has received an exec of a
// script containing s.
func ran(t *testing.T, port, s string) {
	t.Helper()
	v, _ := studios.Load(port)
	p := v.(*fakeplugin.Plugin)
	kit.WaitFor(t, 10*time.Second, "the fake Studio to run "+s, func() bool {
		for _, r := range p.Requests() {
			if r.Action == "exec" && strings.Contains(string(r.Payload), s) {
				return true
			}
		}
		return false
	})
}

// TestTerminalPiped drives the REPL through a pipe: the line-by-line mode.
func TestTerminalPiped(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	in := strings.Join([]string{
		"for i = 1, 2 do",
		"  print(i)",
		"end",
		".state",
		".logs 5",
		".query Workspace.SpawnLocation",
		".query Workspace.Nope",
		".script read ServerScriptService.Main",
		"error('x')",
		".context server",
		".nope",
		".help",
		".disconnect",
		"print(1)",
		".exit",
	}, "\n") + "\n"
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// five entries fail (.query Workspace.Nope, error('x'), .context
	// server, .nope, print(1) detached); the rest still run, and the
	// terminal ends as a failed script does
	if err := runTerminal(ctx, port, Options{In: strings.NewReader(in), Out: &out, Err: &errb}); err == nil || err.Error() != "the input had 5 failures (see above)" {
		t.Fatalf("%v: %s\n%s", err, errb.String(), out.String())
	}
	for _, want := range []string{
		"one\n", // exec output streamed inline
		"42\nVector3(1, 2, 3)\n",
		"State:  Edit",
		"[Warning] careful", // a log line of .logs is its result
		"Position = Vector3(0, 4, 0)",
		".logs [count]", // .help's list
		".run <file>",
		"1  local a = 1\n2  print(a)\n", // .script read: a group's leaf
		".script read <path>",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{
		"Attached to Place [edit]",
		"[Warning] two", // a script's warning
		"No instance found at path: game.Workspace.Nope",
		"script error: Script:2: boom",
		"this Studio window has no server session",
		"Unknown command .nope",
		"Detached.",
		"Not attached to a session",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// Input from a pipe or a file ends as a script does: exit status 0 when
// every entry ran, an error (exit 1) when any failed; the entries after a
// failure still run.
func TestTerminalPipedExitStatus(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	for _, tc := range []struct {
		in, err string
	}{
		{"print(1)\n.state\n", ""},
		{"error('x')\nprint(1)\n", "the input had 1 failure (see above)"},
		{".run\n.nope\n.exit\nprint(1)\n", "the input had 2 failures (see above)"},
	} {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := runTerminal(ctx, port, Options{In: strings.NewReader(tc.in), Out: &out, Err: &errb})
		cancel()
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%q: %v, want %q\nstderr %s", tc.in, err, tc.err, errb.String())
		}
		if tc.err == "the input had 1 failure (see above)" && !strings.Contains(out.String(), "one\n") {
			t.Errorf("the entry after the failure did not run: %q", out.String())
		}
	}
}

// TestTerminalPipedStdoutHoldsOnlyResults: with input and output piped,
// stdout holds what the scripts printed and returned and nothing else; the
// banner, notices, warnings and errors go to stderr, and no prompt goes
// anywhere (no one is typing).
func TestTerminalPipedStdoutHoldsOnlyResults(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	in := "for i = 1, 2 do\n  print(i)\nend\n.nope\nerror('x')\n.context server\n.query Workspace.Nope\n.disconnect\nprint(1)\n"
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := runTerminal(ctx, port, Options{In: strings.NewReader(in), Out: &out, Err: &errb}); err == nil || !strings.Contains(err.Error(), "5 failures") {
		t.Fatalf("%v: %s\n%s", err, errb.String(), out.String())
	}
	if want := "one\n42\nVector3(1, 2, 3)\nStarting...\n"; out.String() != want {
		t.Errorf("stdout %q, want only the results %q", out.String(), want)
	}
	for _, want := range []string{"studio-bridge test terminal.", "Attached to Place [edit]", "[Warning] two", "Unknown command .nope",
		"script error: Script:2: boom", "this Studio window has no server session", "No instance found", "Detached.", "Not attached to a session"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if both := out.String() + errb.String(); strings.Contains(both, "]> ") || strings.Contains(both, "...> ") || strings.Contains(both, "studio-bridge> ") {
		t.Errorf("a prompt was printed with no one typing:\n%s", both)
	}
}

// TestTerminalPTY types into a real pseudo-terminal: line editing, Enter
// continuing an unfinished chunk, Ctrl-C cancelling a running script and
// clearing a line, Ctrl-D exiting.
func TestTerminalPTY(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	master, slave := ptytest.Open(t)
	defer master.Close()
	scr := ptytest.Record(master)
	done := make(chan error, 1)
	go func() {
		done <- runTerminal(context.Background(), port, Options{In: slave, Out: slave, Err: slave})
	}()
	typeKeys := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	scr.WaitFor(t, "Place [edit]> ")
	typeKeys("if true then\r")
	scr.WaitFor(t, "...> ")
	typeKeys("print('hi')\rend\r")
	scr.WaitFor(t, "[Warning] two")
	scr.WaitFor(t, "Vector3(1, 2, 3)")

	typeKeys("task.wait(1e9) -- wait\r") // the fake Studio never finishes scripts that say wait
	ran(t, port, "task.wait(1e9)")
	typeKeys("\x03")
	scr.WaitFor(t, "cancelled")

	typeKeys("print('never')\x03")
	typeKeys("\x1b[A") // up arrow recalls history
	scr.WaitFor(t, "task.wait(1e9) -- wait")
	typeKeys("\x03.state\r")
	scr.WaitFor(t, "State:  Edit")

	typeKeys("\x04")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v\n%s", err, scr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Ctrl-D did not exit:\n%s", scr.String())
	}
	slave.Close()
	master.Close()
	select {
	case <-scr.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("screen reader did not stop")
	}
	if !strings.Contains(scr.String(), "\x1b[33m") {
		t.Errorf("no colour on a terminal:\n%q", scr.String())
	}
	if _, err := os.Stat(filepath.Join(kit.ConfigDir(t), "terminal_history")); err != nil {
		t.Errorf("history not saved: %v", err)
	}
}

// fakeConn is a bridge whose sessions a test sets: a call to a session it
// does not list fails with SESSION_NOT_FOUND, as the host's does; others
// are answered as fakeplugin.Studio answers them. Event streams end at once.
type fakeConn struct {
	mu       sync.Mutex
	sessions []protocol.SessionInfo
	calls    []string // "sessionID action"
}

func (f *fakeConn) set(list ...protocol.SessionInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = list
}

func (f *fakeConn) Sessions(context.Context) ([]protocol.SessionInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]protocol.SessionInfo(nil), f.sessions...), nil
}

func (f *fakeConn) WatchSessions(context.Context) <-chan bridge.SessionEvent { return nil }

func (f *fakeConn) Resolve(ctx context.Context, t bridge.Target) (protocol.SessionInfo, error) {
	list, _ := f.Sessions(ctx)
	return bridge.Resolve(list, t)
}

func (f *fakeConn) Call(ctx context.Context, sessionID, action string, payload json.RawMessage, opts bridge.CallOptions) (json.RawMessage, error) {
	f.mu.Lock()
	known := false
	for _, s := range f.sessions {
		known = known || s.SessionID == sessionID
	}
	if known {
		f.calls = append(f.calls, sessionID+" "+action)
	}
	f.mu.Unlock()
	if !known {
		return nil, protocol.Errorf(protocol.CodeSessionNotFound, "Session not found: %s", sessionID)
	}
	reply := fakeplugin.Studio(action, payload)
	if reply.Err != nil {
		return nil, reply.Err
	}
	if reply.Stall {
		<-ctx.Done()
		return nil, protocol.Errorf(protocol.CodeCancelled, "cancelled")
	}
	for _, p := range reply.Progress {
		if opts.OnProgress != nil {
			raw, _ := json.Marshal(p)
			opts.OnProgress(raw)
		}
	}
	return json.Marshal(reply.Payload)
}

func (f *fakeConn) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeConn) Events(context.Context, string) <-chan protocol.Event {
	ch := make(chan protocol.Event)
	close(ch)
	return ch
}

func (f *fakeConn) Role() bridge.Role { return bridge.RoleHost }
func (f *fakeConn) Close() error      { return nil }

func session(id, instance string, c protocol.Context, state protocol.State) protocol.SessionInfo {
	return protocol.SessionInfo{SessionID: id, InstanceID: instance, Context: c, State: state, PlaceName: "Place " + instance}
}

var (
	editA    = session("aaaa-edit-1", "A", protocol.ContextEdit, protocol.StateEdit)
	playA    = session("aaaa-edit-1", "A", protocol.ContextEdit, protocol.StatePlay)
	serverA  = session("aaaa-server-1", "A", protocol.ContextServer, protocol.StatePlay)
	serverA2 = session("aaaa-server-2", "A", protocol.ContextServer, protocol.StatePlay)
	clientA  = session("aaaa-client-1", "A", protocol.ContextClient, protocol.StatePlay)
	editA2   = session("aaaa-edit-2", "A", protocol.ContextEdit, protocol.StateEdit)
	editB    = session("bbbb-edit-1", "B", protocol.ContextEdit, protocol.StateEdit)
	editC    = session("cccc-edit-1", "C", protocol.ContextEdit, protocol.StateEdit)
	serverB  = session("bbbb-server-1", "B", protocol.ContextServer, protocol.StatePlay)
)

// runOnFake runs the terminal with opts on a fakeConn listing sessions,
// reading in, and returns the conn and all that the terminal printed.
func runOnFake(t *testing.T, opts Options, in string, sessions ...protocol.SessionInfo) (*fakeConn, string) {
	t.Helper()
	conn := &fakeConn{}
	conn.set(sessions...)
	var out bytes.Buffer
	opts.Conn, opts.In, opts.Out, opts.Err = conn, strings.NewReader(in), &out, &out
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	return conn, out.String()
}

// newTestRepl is a terminal on a fake bridge, its screen in out.
func newTestRepl(conn bridge.Conn, out *bytes.Buffer) *repl {
	return &repl{ctx: context.Background(), conn: conn, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		out: out, msg: out, prompts: io.Discard, defaultContext: commands.Exec.DefaultContext}
}

// TestTerminalReattaches: a call to a session the bridge no longer knows
// (Play restarted, Studio came back) finds the session that replaced it and
// runs again there once; with none, or none that is unambiguous, the
// terminal detaches and says how to attach.
func TestTerminalReattaches(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		old    protocol.SessionInfo
		now    []protocol.SessionInfo
		want   string // the session now attached, or "" for detached
		output []string
	}{
		{"Play restarted", serverA, []protocol.SessionInfo{playA, serverA2, clientA}, serverA2.SessionID,
			[]string{"re-attached to Place A [server] (new session aaaa-server-2)", "one\n"}},
		{"Studio came back", editA, []protocol.SessionInfo{editA2, editB}, editA2.SessionID,
			[]string{"re-attached to Place A [edit] (new session aaaa-edit-2)"}},
		{"the only window left in that context", editA, []protocol.SessionInfo{editB}, editB.SessionID,
			[]string{"re-attached to Place B [edit] (new session bbbb-edit-1)"}},
		{"two windows could replace it", editA, []protocol.SessionInfo{editB, editC}, "",
			[]string{"Session aaaa-edit-1 of Place A [edit] is gone", "bbbb-edit-1", "cccc-edit-1", ".connect <id>", ".context"}},
		{"Play stopped: not another window's server", serverA, []protocol.SessionInfo{editA, serverB}, "",
			[]string{"is gone and nothing replaces it: detached", "bbbb-server-1"}},
		{"Studio gone", editA, nil, "",
			[]string{"is gone", "No Studio session is connected"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn := &fakeConn{}
			conn.set(tt.now...)
			var out bytes.Buffer
			r := newTestRepl(conn, &out)
			r.attach(tt.old)
			r.exec("print(1)")
			got := out.String()
			for _, w := range tt.output {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "Session not found") {
				t.Errorf("the stale session leaked:\n%s", got)
			}
			if tt.want == "" {
				if r.attached || r.prompt(false) != "studio-bridge> " || len(conn.Calls()) != 0 {
					t.Errorf("still attached (%v, prompt %q, calls %q)", r.attached, r.prompt(false), conn.Calls())
				}
				return
			}
			if !r.attached || r.session.SessionID != tt.want || !reflect.DeepEqual(conn.Calls(), []string{tt.want + " exec"}) {
				t.Errorf("attached %v to %s, calls %q; want %s", r.attached, r.session.SessionID, conn.Calls(), tt.want)
			}
			if p := fmt.Sprintf("%s [%s]> ", r.session.PlaceName, r.session.Context); r.prompt(false) != p {
				t.Errorf("prompt %q, want %q", r.prompt(false), p)
			}
		})
	}
}

// TestTerminalConnect: .connect takes a session id, an instance id or a
// unique prefix of one; bare, it picks as startup does (the server in Play
// mode); extra words are a usage error.
func TestTerminalConnect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sessions []protocol.SessionInfo
		line     string
		want     string // the session attached, or "" for none
		output   string
	}{
		{[]protocol.SessionInfo{playA, serverA, clientA}, ".connect", serverA.SessionID, "Attached to Place A [server]"},
		{[]protocol.SessionInfo{editA}, ".connect", editA.SessionID, "Attached to Place A [edit]"},
		{[]protocol.SessionInfo{editA, editB}, ".connect", "", "Multiple Studio instances connected"},
		{[]protocol.SessionInfo{editA, editB}, ".connect bbbb-edit-1 extra", "", "usage: .connect [id]"},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect aaaa-client-1", clientA.SessionID, "Attached to Place A [client]"},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect A", serverA.SessionID, "Attached to Place A [server]"},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect B", editB.SessionID, "Attached to Place B [edit]"},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect bbbb", editB.SessionID, "Attached to Place B [edit]"},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect aaaa-s", serverA.SessionID, "Attached to Place A [server]"},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect aaaa", "", `"aaaa" matches more than one`},
		{[]protocol.SessionInfo{playA, serverA, clientA, editB}, ".connect zz", "", "Session not found: zz (an id prefix needs at least 4 characters)"},
	} {
		conn := &fakeConn{}
		conn.set(tt.sessions...)
		var out bytes.Buffer
		r := newTestRepl(conn, &out)
		if err := r.dot(tt.line); err != nil {
			t.Fatal(err)
		}
		got := ""
		if r.attached {
			got = r.session.SessionID
		}
		if got != tt.want || !strings.Contains(out.String(), tt.output) {
			t.Errorf("%s with %d sessions: attached to %q, want %q; want %q in:\n%s", tt.line, len(tt.sessions), got, tt.want, tt.output, out.String())
		}
		listed := "bbbb-edit-1" // everything to choose from
		if strings.Contains(tt.output, "matches more than one") {
			listed = "aaaa-client-1" // an ambiguous prefix lists its candidates
		}
		if tt.want == "" && len(tt.sessions) > 1 && !strings.Contains(tt.line, "extra") && !strings.Contains(out.String(), listed) {
			t.Errorf("%s: the sessions to choose from are not listed:\n%s", tt.line, out.String())
		}
	}
}

// TestTerminalStartupNotAttached: when startup attaches to nothing, the
// terminal says why and how to attach, fitting the reason.
func TestTerminalStartupNotAttached(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sessions []protocol.SessionInfo
		target   bridge.Target
		want     []string
		not      string
	}{
		{[]protocol.SessionInfo{editA, editB}, bridge.Target{},
			[]string{"Multiple Studio instances connected", "aaaa-edit-1", "bbbb-edit-1", "pick a session above with .connect <id>"}, "once Studio is running"},
		{nil, bridge.Target{}, []string{"No active sessions", "once Studio is running"}, ".connect <id> or"},
		{[]protocol.SessionInfo{editA}, bridge.Target{Context: protocol.ContextServer},
			[]string{"No server context available", ".context <edit|server|client>"}, "once Studio is running"},
	} {
		tt.target.DefaultContext = commands.Exec.DefaultContext
		_, out := runOnFake(t, Options{Target: tt.target}, "", tt.sessions...)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
		if strings.Contains(out, tt.not) {
			t.Errorf("output has %q:\n%s", tt.not, out)
		}
	}
}

// TestTerminalFollowEnds: .logs --follow returns no result when it ends
// (here its event stream closes): the terminal goes on to the next line.
func TestTerminalFollowEnds(t *testing.T) {
	t.Parallel()
	_, out := runOnFake(t, Options{}, ".logs --follow\n.state\n", editA)
	for _, w := range []string{"[Warning] careful", "State:  Edit"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestTerminalUnfinishedChunk: input that ends inside a chunk does not run
// it, and says so; from a pipe that is an error (exit 1).
func TestTerminalUnfinishedChunk(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := runTerminal(ctx, port, Options{In: strings.NewReader("print(1)\nfor i = 1, 2 do\n  print(i)\n"), Out: &out, Err: &errb})
	if err == nil || !strings.Contains(err.Error(), `unfinished Luau chunk (2 lines, from "for i = 1, 2 do"), which was not run`) {
		t.Fatalf("error %v, stderr:\n%s", err, errb.String())
	}
	if strings.Count(errb.String(), "[Warning] two") != 1 {
		t.Fatalf("print(1) should have run once:\n%s", errb.String())
	}
}

// TestTerminalQuotedStringEndsChunk: an unclosed quoted string does not
// swallow the lines after it: the chunk runs (and fails to compile) and
// .exit still exits.
func TestTerminalQuotedStringEndsChunk(t *testing.T) {
	t.Parallel()
	conn, out := runOnFake(t, Options{}, "print(\"oops\n.exit\nprint(2)\n", editA)
	if calls := conn.Calls(); !reflect.DeepEqual(calls, []string{"aaaa-edit-1 exec"}) {
		t.Fatalf("calls %q, want one exec before .exit:\n%s", calls, out)
	}
}

// ptyTerminal runs the terminal in a pseudo-terminal, with a user config
// directory (where the history file goes) of the test's
// own: what it shows, a way to type, and its exit code when it ends.
// The terminal runs in this process (under -race, beside the fake Studio),
// so on Windows ptytest.Open skips: a pseudo console reaches only a child
// process. test/emulator's terminal test runs the binary on one there.
func ptyTerminal(t *testing.T, port string, wait time.Duration) (scr *ptytest.Screen, typeKeys func(string), exited func() error) {
	t.Helper()
	master, slave := ptytest.Open(t)
	scr = ptytest.Record(master)
	done := make(chan error, 1)
	go func() {
		done <- runTerminal(context.Background(), port, Options{Wait: wait, In: slave, Out: slave, Err: slave})
	}()
	t.Cleanup(func() {
		slave.Close()
		master.Close()
		<-scr.Done()
	})
	typeKeys = func(s string) {
		t.Helper()
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	exited = func() error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("the terminal did not exit:\n%s", scr.String())
			return nil
		}
	}
	return scr, typeKeys, exited
}

// ptyAttached is ptyTerminal on a bridge with a Studio-like plugin, once
// the terminal shows its attached prompt.
func ptyAttached(t *testing.T) (scr *ptytest.Screen, typeKeys func(string), exited func() error) {
	t.Helper()
	scr, typeKeys, exited = ptyTerminal(t, studioPort(t), 0)
	scr.WaitFor(t, "Place [edit]> ")
	return scr, typeKeys, exited
}

// TestTerminalPTYFollowCtrlC: Ctrl-C ends .logs --follow and the prompt
// comes back; Ctrl-D then leaves the shell a fresh line.
func TestTerminalPTYFollowCtrlC(t *testing.T) {
	t.Parallel()
	scr, typeKeys, exited := ptyAttached(t)
	typeKeys(".logs --follow\r")
	scr.WaitFor(t, "[Warning] careful")
	time.Sleep(200 * time.Millisecond)
	typeKeys("\x03")
	scr.WaitFor(t, "stopped")
	typeKeys(".state\r")
	scr.WaitFor(t, "State:  Edit")
	typeKeys("\x04")
	if err := exited(); err != nil {
		t.Fatalf("%v:\n%s", err, scr.String())
	}
	scr.WaitFor(t, "Place [edit]> \r\n") // the screen is read asynchronously
	if got := scr.String(); !strings.HasSuffix(got, "Place [edit]> \r\n") {
		t.Fatalf("Ctrl-D did not end on a fresh line:\n%q", got[max(0, len(got)-80):])
	}
}

// TestTerminalPTYWaitInterrupt: while the terminal waits for Studio at
// startup it says so; Ctrl-C stops waiting (the prompt comes, detached)
// and Ctrl-D exits.
func TestTerminalPTYWaitInterrupt(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"\x03", "\x04"} {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			scr, typeKeys, exited := ptyTerminal(t, freePort(t), 25*time.Second)
			scr.WaitFor(t, "Waiting up to 25s for a Studio session (Ctrl-C stops waiting, Ctrl-D exits)")
			time.Sleep(200 * time.Millisecond)
			typeKeys(key)
			if key == "\x03" {
				scr.WaitFor(t, "Stopped waiting. Not attached")
				scr.WaitFor(t, "studio-bridge> ")
				typeKeys(".sessions\r")
				scr.WaitFor(t, "No active sessions") // the wait left no keys behind
				typeKeys("\x04")
			}
			if err := exited(); err != nil {
				t.Fatalf("%v:\n%s", err, scr.String())
			}
			if strings.Contains(scr.String(), "\x03") || strings.Count(scr.String(), "studio-bridge> ") > 2 {
				t.Fatalf("keys typed while waiting replayed:\n%q", scr.String())
			}
		})
	}
}

// TestTerminalPTYChunkHistory: a chunk typed over several lines is one
// history entry, recalled by Up as one line that runs the same; Home and
// End work as tmux sends them; Ctrl-D inside a chunk says it was not run.
func TestTerminalPTYChunkHistory(t *testing.T) {
	t.Parallel()
	scr, typeKeys, exited := ptyAttached(t)
	typeKeys("for i = 1, 2 do\r")
	scr.WaitFor(t, "...> ")
	typeKeys("print(i) -- each\rend\r")
	scr.WaitFor(t, "[Warning] two")
	typeKeys("\x1b[A")
	scr.WaitFor(t, "for i = 1, 2 do print(i) --[[ each ]] end")
	typeKeys("\r")
	scr.WaitForCount(t, "[Warning] two", 2)
	typeKeys("rint(1)\x1b[1~p\x1b[4~ \r") // Home, then End, as tmux sends them
	scr.WaitForCount(t, "[Warning] two", 3)
	typeKeys("if true then\r")
	time.Sleep(100 * time.Millisecond)
	typeKeys("\x04")
	if err := exited(); err != nil {
		t.Fatalf("%v:\n%s", err, scr.String())
	}
	scr.WaitFor(t, `(1 line, from "if true then"), which was not run`) // Ctrl-D inside a chunk says it was not run
	raw, err := os.ReadFile(filepath.Join(kit.ConfigDir(t), "terminal_history"))
	if err != nil {
		t.Fatal(err)
	}
	want := `"for i = 1, 2 do\nprint(i) -- each\nend"` + "\n" + `"for i = 1, 2 do print(i) --[[ each ]] end"` + "\n" + `"print(1) "` + "\n"
	if string(raw) != want {
		t.Fatalf("history file:\n%s\nwant:\n%s", raw, want)
	}
}

// TestTerminalTypedWithStdoutRedirected: a person types (stdin is a
// terminal) while stdout goes to a file: the prompts go to stderr, where
// the person sees them, and stdout still holds only results.
func TestTerminalTypedWithStdoutRedirected(t *testing.T) {
	t.Parallel()
	port := studioPort(t)
	master, slave := ptytest.Open(t)
	defer master.Close()
	defer slave.Close()
	var out, errb kit.Buffer
	done := make(chan error, 1)
	go func() { done <- runTerminal(context.Background(), port, Options{In: slave, Out: &out, Err: &errb}) }()
	if _, err := master.Write([]byte("print(1)\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(out.String(), "Vector3(1, 2, 3)") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := master.Write([]byte{4}); err != nil { // Ctrl-D: end of input
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Ctrl-D did not end the terminal; stderr:\n%s", errb.String())
	}
	if want := "one\n42\nVector3(1, 2, 3)\n"; out.String() != want {
		t.Errorf("stdout %q, want only the results %q", out.String(), want)
	}
	if !strings.Contains(errb.String(), "Place [edit]> ") {
		t.Errorf("the prompt is not on stderr:\n%s", errb.String())
	}
}
