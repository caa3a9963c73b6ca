package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestSubscribeUnknownResource: resources/subscribe to a URI this server
// does not offer answers MCP's resource-not-found (-32602 in go-sdk 1.8, as
// resources/read answers), not code 0; the
// resources it does offer can be subscribed to. Raw JSON-RPC: the SDK's
// client at the newest protocol version does not send resources/subscribe.
func TestSubscribeUnknownResource(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.server(t, Options{})
	p := serveStdio(t, s)
	p.initialize()
	id := 10
	subscribe := func(uri string) map[string]any {
		t.Helper()
		id++
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"resources/subscribe","params":{"uri":` + strconv.Quote(uri) + `}}`)
		return p.response(float64(id))
	}
	for _, uri := range []string{"studio://nothing", "studio://sessions/x/logs/more", "studio://sessions//logs", "file:///etc/passwd"} {
		r := subscribe(uri)
		if code := errorCode(r); code != float64(jsonrpc.CodeInvalidParams) {
			t.Errorf("subscribe %s: want JSON-RPC error %d, got %v", uri, jsonrpc.CodeInvalidParams, r)
		}
	}
	for _, uri := range []string{SessionsURI, "studio://sessions/0b6c8a4e/logs"} {
		if r := subscribe(uri); r["error"] != nil {
			t.Errorf("subscribe %s: %v", uri, r["error"])
		}
	}
}

// TestCannotConnect: with a --remote host that is down, a tool call and a
// resource read answer the spec's -32603 "Cannot connect to studio-bridge.
// Is the bridge host running?" once UnreachableWait ends, not a tool error
// after the whole FailoverWait; the server still started (lazily).
func TestCannotConnect(t *testing.T) {
	t.Parallel()
	remote := "127.0.0.1:" + strconv.Itoa(kit.FreePort(t))
	b, err := bridge.Connect(context.Background(), bridge.Options{Token: kit.Token(t), Remote: remote, Lazy: true,
		JoinTimeout: 200 * time.Millisecond, UnreachableWait: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("a lazy server must start with its host down: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	s, err := New(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	// Which wait applied is in the error, not the clock: only the
	// UnreachableWait's expiry gives a *bridge.UnreachableError, which
	// alone maps to -32603 (o.Unreachable); its text names that wait. The
	// FailoverWait's expiry is a tool error saying "within 10s".
	check := func(what string, err error) {
		t.Helper()
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || werr.Message != cannotConnect {
			t.Fatalf("%s with the host down: want JSON-RPC -32603 %q, got %#v", what, cannotConnect, err)
		}
		var data struct{ Detail string }
		if err := json.Unmarshal(werr.Data, &data); err != nil {
			t.Fatalf("%s: error data %s: %v", what, werr.Data, err)
		}
		if want := "(still trying for 500ms)"; !strings.Contains(data.Detail, "cannot reach a studio-bridge host at "+remote) || !strings.Contains(data.Detail, want) {
			t.Fatalf("%s: the detail does not say the unreachable wait (%s) applied: %q", what, want, data.Detail)
		}
	}
	for _, tool := range []string{"studio_sessions", "studio_state"} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err == nil {
			t.Fatalf("%s with the host down: a result (isError %v), want the JSON-RPC error", tool, res.IsError)
		}
		check(tool, err)
	}
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: SessionsURI})
	check("resources/read", err)
}
