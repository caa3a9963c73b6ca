package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"image/png"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// -update rewrites the golden files (kit.Golden reads it).
var _ = flag.Bool("update", false, "rewrite golden files")

// TestMain runs the tests in a config directory of their own, under goleak.
func TestMain(m *testing.M) { kit.MainInConfigDir(m) }

// world is a bridge host in the test process with fake plugins joined to
// it. Its bridge runs in memory (bridgekit.InMemory): plugins dial it with
// http, at the made-up port; newSocketWorld's uses a real loopback port.
type world struct {
	port   int
	http   *http.Client // nil: a real port
	bridge *bridge.Bridge
}

func newWorld(t *testing.T) *world {
	t.Helper()
	opts, ln := bridgekit.InMemory(bridge.Options{Grace: 300 * time.Millisecond})
	b := bridgekit.Connect(t, opts)
	t.Cleanup(b.Kill)
	return &world{port: ln.Port(), http: ln.HTTPClient(), bridge: b}
}

// newSocketWorld is a world whose bridge host listens on a real loopback
// port, for the tests that keep the product's sockets in the loop.
func newSocketWorld(t *testing.T) *world {
	t.Helper()
	port := kit.FreePort(t)
	b := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 300 * time.Millisecond})
	t.Cleanup(b.Kill)
	return &world{port: port, bridge: b}
}

func (w *world) plugin(t *testing.T, instance string, ctx protocol.Context, state protocol.State) string {
	t.Helper()
	_, id := kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: instance, Context: ctx, State: state,
		PlaceName: "Place", Handler: fakeplugin.Studio})
	return id
}

func (w *world) client(t *testing.T, opts Options) *sdk.ClientSession {
	t.Helper()
	_, cs := w.serve(t, opts, nil)
	return cs
}

// server is New on the world's bridge, failing the test on an error.
func (w *world) server(t *testing.T, opts Options) *sdk.Server {
	t.Helper()
	s, err := New(w.bridge, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// editStudio starts a fake Studio plugin (one edit DataModel, instance A)
// and waits until the host has welcomed it.
func (w *world) editStudio(t *testing.T) *fakeplugin.Plugin {
	t.Helper()
	pl := fakeplugin.Start(fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit,
		Handler: fakeplugin.Studio, RetryDelays: []time.Duration{50 * time.Millisecond}})
	t.Cleanup(pl.Close)
	if _, err := pl.WaitWelcome(context.Background()); err != nil {
		t.Fatal(err)
	}
	return pl
}

// serve starts a server with opts and connects a client with copts to it,
// over in-memory transports.
func (w *world) serve(t *testing.T, opts Options, copts *sdk.ClientOptions) (*sdk.Server, *sdk.ClientSession) {
	t.Helper()
	s := w.server(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return s, cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(tc.Text), &m); err != nil {
		t.Fatalf("text is not JSON: %v: %s", err, tc.Text)
	}
	return m
}

func TestToolsGolden(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := w.client(t, Options{})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(list.Tools, "", "  ")
	kit.Golden(t, filepath.Join("testdata", "tools.golden.json"), append(got, '\n'))
}

// TestToolFiltering: which tools each set of options offers (the schemas
// of all of them are TestToolsGolden's).
func TestToolFiltering(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{}, "studio_exec,studio_logs,studio_play,studio_query,studio_screenshot,studio_script_edit,studio_script_grep,studio_script_read,studio_sessions,studio_state,studio_test"},
		{Options{ReadOnly: true}, "studio_logs,studio_query,studio_screenshot,studio_script_grep,studio_script_read,studio_sessions,studio_state"},
		{Options{Tools: []string{"studio_sessions", "studio_logs"}}, "studio_logs,studio_sessions"},
	} {
		cs := w.client(t, tt.opts)
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if got := strings.Join(names, ","); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.opts, got, tt.want)
		}
	}
	if _, err := Exposed(Options{Tools: []string{"studio_nope"}}); err == nil || !strings.Contains(err.Error(), "studio_nope") {
		t.Fatalf("unknown allowlist entry: %v", err)
	}
}

func TestToolCalls(t *testing.T) {
	t.Parallel()
	w := newSocketWorld(t) // real sockets: the product's path end to end
	id := w.plugin(t, "A", protocol.ContextEdit, protocol.StateEdit)
	cs := w.client(t, Options{})

	res := call(t, cs, "studio_sessions", nil)
	if res.IsError {
		t.Fatalf("sessions: %+v", res)
	}
	if sessions := text(t, res)["sessions"].([]any); len(sessions) != 1 || sessions[0].(map[string]any)["sessionId"] != id {
		t.Fatalf("sessions: %+v", sessions)
	}

	res = call(t, cs, "studio_state", nil)
	if m := text(t, res); res.IsError || m["state"] != "Edit" || m["placeId"] != 7.0 {
		t.Fatalf("state: %+v", m)
	}
	if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), `"placeName":"Place"`) {
		t.Fatalf("structured content: %s", sc)
	}

	res = call(t, cs, "studio_logs", map[string]any{"count": 10, "levels": []string{"Warning"}})
	if m := text(t, res); res.IsError || m["bufferCapacity"] != 2000.0 {
		t.Fatalf("logs: %+v", m)
	}

	res = call(t, cs, "studio_query", map[string]any{"path": "Workspace.SpawnLocation"})
	if m := text(t, res); res.IsError || m["instance"].(map[string]any)["className"] != "SpawnLocation" {
		t.Fatalf("query: %+v", m)
	}
	res = call(t, cs, "studio_query", map[string]any{"path": "Workspace.NonExistent"})
	if m := text(t, res); !res.IsError || m["error"] != "No instance found at path: game.Workspace.NonExistent" {
		t.Fatalf("missing instance: %+v", m)
	}

	res = call(t, cs, "studio_exec", map[string]any{"script": "error('boom')"})
	if m := text(t, res); res.IsError || m["success"] != false || m["error"] != "Script:2: boom" || len(m["logs"].([]any)) != 1 {
		t.Fatalf("failing script must be a normal result: %+v", m)
	}

	res = call(t, cs, "studio_screenshot", nil)
	img, ok := res.Content[0].(*sdk.ImageContent)
	if res.IsError || !ok || img.MIMEType != "image/png" {
		t.Fatalf("screenshot: %+v", res.Content)
	}
	decoded, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil || decoded.Bounds().Dx() != 2 {
		t.Fatalf("screenshot PNG: %v", err)
	}
}

func TestProgressNotifications(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.plugin(t, "A", protocol.ContextEdit, protocol.StateEdit)
	ctx := context.Background()
	got := make(chan string, 10)
	_, cs := w.serve(t, Options{}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			got <- r.Params.Message
		},
	})
	params := &sdk.CallToolParams{Name: "studio_exec", Arguments: map[string]any{"script": "print('one')"}}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"one", "[Warning] two"} {
		select {
		case m := <-got:
			if m == "looking for Studio sessions…" {
				// The resolution's status line, shown when it waits longer
				// than commands.SlowStatus: on a busy machine it may.
				m = <-got
			}
			if m != want {
				t.Fatalf("progress %q, want %q", m, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no progress %q", want)
		}
	}

	// A command's status line (what a terminal shows while it waits)
	// reaches an agent that asked for progress.
	params = &sdk.CallToolParams{Name: "studio_screenshot", Arguments: map[string]any{}}
	params.SetProgressToken("p2")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "capturing the Studio viewport…" {
			t.Fatalf("screenshot progress %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress while capturing")
	}
}

func TestErrorMapping(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cs := w.client(t, Options{})

	res := call(t, cs, "studio_sessions", nil)
	if m := text(t, res); !res.IsError || m["error"] != "No active sessions. Is Studio running with the studio-bridge plugin installed?" {
		t.Fatalf("no sessions: %+v", m)
	}
	res = call(t, cs, "studio_state", map[string]any{"sessionId": "nope"})
	if m := text(t, res); !res.IsError || m["error"] != "Session not found: nope. Call studio_sessions to see available sessions." {
		t.Fatalf("unknown session: %+v", m)
	}

	w.plugin(t, "A", protocol.ContextEdit, protocol.StateEdit)
	res = call(t, cs, "studio_state", map[string]any{"context": "server"})
	if m := text(t, res); !res.IsError || m["error"] != "No server context available. Studio is in Edit mode. Use context: edit or omit context." {
		t.Fatalf("context: %+v", m)
	}

	b := w.plugin(t, "B", protocol.ContextEdit, protocol.StateEdit)
	res = call(t, cs, "studio_state", nil)
	m := text(t, res)
	if !res.IsError || m["error"] != "Multiple Studio instances connected. Specify a sessionId." || len(m["sessions"].([]any)) != 2 {
		t.Fatalf("multiple instances: %+v", m)
	}
	res = call(t, cs, "studio_state", map[string]any{"sessionId": b})
	if res.IsError {
		t.Fatalf("with sessionId: %+v", text(t, res))
	}

	// An unknown tool is a broken request: JSON-RPC -32602.
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "studio_nope"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != "Unknown tool: studio_nope" {
		t.Errorf("studio_nope: want -32602 Unknown tool, got %v", err)
	}
	// Input the tool refuses is a tool error the model reads (MCP
	// 2025-11-25, SEP-1303), worded for MCP: argument names as in the
	// schema, no CLI usage line.
	for _, tt := range []struct {
		name string
		args map[string]any
		want string // the error text's start
	}{
		{"studio_query", map[string]any{"depth": 1}, "Invalid input: query needs a path (e.g. Workspace.SpawnLocation), or listServices"},
		{"studio_query", map[string]any{"path": "Workspace", "depth": 1.5}, "Invalid input: depth must be a whole number"},
		{"studio_logs", map[string]any{"count": "ten"}, "Invalid input: "},
		{"studio_state", map[string]any{"extra": true}, "Invalid input: "},
		{"studio_exec", map[string]any{"sessionId": b, "script": "print(1)", "timeout": 0}, "Invalid input: timeout must be a whole number of seconds from 1 to 3600"},
		{"studio_test", map[string]any{"sessionId": b, "root": "ReplicatedStorage.Tests", "paths": []string{"x"}}, "Invalid input: test: give spec paths or root, not both: root runs"},
		// Checks a command makes when it runs are invalid input too.
		{"studio_logs", map[string]any{"sessionId": b, "count": -1}, "Invalid input: logs: count must not be negative"},
		{"studio_exec", map[string]any{"sessionId": b, "script": "  "}, "Invalid input: exec: the script is empty"},
		{"studio_exec", map[string]any{"sessionId": b, "script": ""}, "Invalid input: exec needs script"},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.name, Arguments: tt.args})
		if err != nil {
			t.Errorf("%s %v: want a tool error, got %v", tt.name, tt.args, err)
			continue
		}
		m := text(t, res)
		msg, _ := m["error"].(string)
		if !res.IsError || !strings.HasPrefix(msg, tt.want) || strings.Contains(msg, "usage:") || strings.Contains(msg, "--") {
			t.Errorf("%s %v: want isError %q…, got %+v", tt.name, tt.args, tt.want, m)
		}
	}
}

// TestResourceNotifications: a subscriber of studio://sessions hears of a
// session coming and going, the resource list changes with it, and the
// session's logs resource reads its recent lines.
func TestResourceNotifications(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.plugin(t, "A", protocol.ContextEdit, protocol.StateEdit)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	updated, listChanged := make(chan string, 16), make(chan struct{}, 16)
	s, cs := w.serve(t, Options{}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			updated <- r.Params.URI
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			listChanged <- struct{}{}
		},
	})
	go WatchResources(ctx, s, w.bridge)
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: SessionsURI}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	expect := func(what string) {
		t.Helper()
		for gotUpdate, gotList := false, false; !gotUpdate || !gotList; {
			select {
			case uri := <-updated:
				gotUpdate = gotUpdate || uri == SessionsURI
			case <-listChanged:
				gotList = true
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: updated %v, list changed %v", what, gotUpdate, gotList)
			}
		}
	}

	listed := func(session string) string {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range list.Resources {
				if r.URI == sessionURIPrefix+session+"/logs" {
					return r.URI
				}
			}
		}
		t.Fatalf("no logs resource for session %s", session)
		return ""
	}
	// The watcher lists the sessions once it watches: only then can a new
	// session's event reach it.
	listed(a)
	for len(listChanged) > 0 {
		<-listChanged
	}

	b := w.plugin(t, "B", protocol.ContextEdit, protocol.StateEdit)
	expect("a session connecting")
	logsURI := listed(b)
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: logsURI})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "careful") {
		t.Fatalf("read %s: %+v %v", logsURI, res, err)
	}
}

// TestErrorTexts: infrastructure failures become isError results whose
// "error" is the spec's text (or the command's own, already worded for
// people).
func TestErrorTexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		want, more string
	}{
		{protocol.Errorf(protocol.CodeTimeout, "State query timed out after 5 seconds."), "State query timed out after 5 seconds.", ""},
		{protocol.Errorf(protocol.CodeBusy, "a script is running"), "Plugin is busy executing another script.", "a script is running"},
		// BUSY keeps the spec's text; the real reason and the next step,
		// worded as an agent takes it, are in detail.
		{&commands.Worded{Code: protocol.CodeBusy, Format: "Studio is already in %s mode; %s first.", Args: []any{protocol.StatePlay, commands.StepTo{Path: "play", Words: []string{"stop"}}}},
			"Plugin is busy executing another script.", `Studio is already in Play mode; call studio_play with {"action":"stop"} first.`},
		{protocol.Errorf(protocol.CodeHostUnavailable, "no bridge host answered on 127.0.0.1:1"),
			"No bridge host running. Start Studio with the studio-bridge plugin installed, then try again.", "no bridge host answered on 127.0.0.1:1"},
		{protocol.Errorf(protocol.CodeSessionNotFound, "Session not found: s1"), "Session not found: s1. Call studio_sessions to see available sessions.", ""},
		{protocol.Errorf(protocol.CodeUnknownOutcome, "lost the bridge host while exec was in flight; it may or may not have run in Studio"),
			"lost the bridge host while exec was in flight; it may or may not have run in Studio", ""},
		{protocol.Errorf(protocol.CodeInstanceNotFound, "No instance found at path: game.Workspace.NonExistent"), "No instance found at path: game.Workspace.NonExistent", ""},
		{protocol.Errorf(protocol.CodeScreenshotFailed, "Screenshot capture failed: viewport is not available."), "Screenshot capture failed: viewport is not available.", ""},
	}
	for _, tt := range tests {
		res := errorResult(commands.Classify(tt.err), bridge.Target{SessionID: "s1"})
		var body map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &body); err != nil || !res.IsError {
			t.Fatalf("%v: not an isError JSON result: %v", tt.err, err)
		}
		if body["error"] != tt.want {
			t.Errorf("%v: error %q, want %q", tt.err, body["error"], tt.want)
		}
		if detail, _ := body["detail"].(string); tt.more != "" && !strings.Contains(detail, tt.more) {
			t.Errorf("%v: detail %q, want it to say %q", tt.err, detail, tt.more)
		}
	}
}

// TestCancellationReachesThePlugin: a client that cancels a running
// studio_exec gets its call back at once, and the plugin is asked to stop
// the script.
func TestCancellationReachesThePlugin(t *testing.T) {
	t.Parallel()
	w := newSocketWorld(t) // real sockets: a cancel crosses TCP
	p := fakeplugin.Start(fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Handler: fakeplugin.Studio,
		RetryDelays: []time.Duration{50 * time.Millisecond}})
	t.Cleanup(p.Close)
	if _, err := p.WaitWelcome(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs := w.client(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "studio_exec", Arguments: map[string]any{"script": "task.wait(60)"}})
	if err == nil {
		t.Fatal("a cancelled call must not succeed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(p.Cancels()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the plugin was never asked to cancel the script")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCancelledCallCode: where a transport still answers a tools/call the
// client cancelled (the SDK's own, here in memory; stdio sends nothing, see
// TestCancelledCallGetsNoResponse), the answer carries a standard JSON-RPC
// error code, not 0. The SDK's client drops that answer, so this test speaks
// raw JSON-RPC over the in-memory transport.
func TestCancelledCallCode(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, _ := kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit,
		PlaceName: "Place", Handler: fakeplugin.Studio})
	s := w.server(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { conn.Close(); ss.Wait() }()
	send := func(raw string) {
		t.Helper()
		msg, err := jsonrpc.DecodeMessage([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	response := func(id int64) *jsonrpc.Response {
		t.Helper()
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for response %d: %v", id, err)
			}
			if r, ok := msg.(*jsonrpc.Response); ok && r.ID.Raw() == id {
				return r
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := response(1); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"studio_exec","arguments":{"script":"task.wait(60)"}}}`)
	kit.WaitFor(t, 10*time.Second, "the script to start in the plugin", func() bool {
		for _, r := range p.Requests() {
			if r.Action == "exec" {
				return true
			}
		}
		return false
	})
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	r := response(2)
	var werr *jsonrpc.Error
	if !errors.As(r.Error, &werr) || werr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("cancelled call: want a -32603 error, got %#v", r.Error)
	}
}

// TestSessionLogsTemplate: studio://sessions/{sessionId}/logs reads a
// session's recent Output through the resource template (no concrete
// resource is listed here: WatchResources is not running), and an unknown
// session is resource-not-found.
func TestSessionLogsTemplate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := w.plugin(t, "A", protocol.ContextEdit, protocol.StateEdit)
	cs := w.client(t, Options{})
	ctx := context.Background()
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != sessionLogsURI {
		t.Fatalf("templates: %+v %v", tmpls, err)
	}
	uri := sessionURIPrefix + id + "/logs"
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" ||
		!strings.Contains(res.Contents[0].Text, "careful") {
		t.Fatalf("read %s: %+v %v", uri, res, err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &body); err != nil || body["bufferCapacity"] != 2000.0 {
		t.Fatalf("logs body: %v %s", err, res.Contents[0].Text)
	}
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: sessionURIPrefix + "nope/logs"})
	var werr *jsonrpc.Error
	//lint:ignore SA1019 the code sdk.ResourceNotFoundError sends, whichever one MCPGODEBUG picks
	if !errors.As(err, &werr) || werr.Code != sdk.CodeResourceNotFound {
		t.Fatalf("unknown session: want resource-not-found, got %v", err)
	}
}

// TestResourceListChanged: the resource list changes, and the client is
// told, both when a session connects and when it disconnects.
func TestResourceListChanged(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listChanged := make(chan struct{}, 64)
	s, cs := w.serve(t, Options{}, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			listChanged <- struct{}{}
		},
	})
	done := make(chan struct{})
	go func() { defer close(done); WatchResources(ctx, s, w.bridge) }()
	t.Cleanup(func() { cancel(); <-done })
	listed := func(uri string) bool {
		t.Helper()
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Resources {
			if r.URI == uri {
				return true
			}
		}
		return false
	}
	// expect waits for at least one list_changed, then for the logs
	// resource to be listed (or not), and drains what else came.
	expect := func(what, uri string, present bool) {
		t.Helper()
		select {
		case <-listChanged:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no resources list_changed notification", what)
		}
		for deadline := time.Now().Add(5 * time.Second); listed(uri) != present; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s listed = %v", what, uri, !present)
			}
		}
		time.Sleep(100 * time.Millisecond) // the SDK may send a batch
		for len(listChanged) > 0 {
			<-listChanged
		}
	}

	p, id := kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit,
		PlaceName: "Place", Handler: fakeplugin.Studio})
	uri := sessionURIPrefix + id + "/logs"
	expect("a session connecting", uri, true)
	p.Close()
	expect("a session disconnecting", uri, false)
}

// TestTimeoutOption: the global --timeout reaches every tool call.
func TestTimeoutOption(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "slow",
		Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Stall: true} }})
	cs := w.client(t, Options{Timeout: 300 * time.Millisecond})
	res := call(t, cs, "studio_exec", map[string]any{"script": "while true do task.wait() end"})
	tc, _ := res.Content[0].(*sdk.TextContent)
	if !res.IsError || tc == nil || !strings.Contains(tc.Text, "timed out after 300ms") { // the option's timeout, not exec's own
		t.Fatalf("want a timed-out error result, got isError=%v %+v", res.IsError, res.Content)
	}
}
