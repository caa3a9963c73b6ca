package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Deeply nested JSON against the real binary: a frame of nested "[" used to
// overflow the host's stack, which is fatal, so these tests run the host as
// a process and check after every frame that it is still the host and
// still relays calls.

// rawWS is a hand-driven WebSocket on the host.
type rawWS struct {
	t *testing.T
	c *websocket.Conn
}

func dialWS(t *testing.T, port int, path string) *rawWS {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", port, path),
		&websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}})
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	c.SetReadLimit(protocol.ClientMaxFrameBytes)
	t.Cleanup(func() { _ = c.CloseNow() })
	return &rawWS{t: t, c: c}
}

func (r *rawWS) write(data []byte) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.c.Write(ctx, websocket.MessageText, data) // the host may close mid-write
}

func (r *rawWS) send(m protocol.Message) {
	r.t.Helper()
	data, err := protocol.Encode(m)
	if err != nil {
		r.t.Fatal(err)
	}
	r.write(data)
}

// next reads frames until one of type want (skipping pings and session
// events), or until the connection closes: then it returns the close.
func (r *rawWS) next(want string) (protocol.Message, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, data, err := r.c.Read(ctx)
		if err != nil {
			return nil, err
		}
		m, err := protocol.Decode(data)
		if err != nil {
			r.t.Fatalf("host sent an undecodable frame: %v", err)
		}
		switch m.Type() {
		case want:
			return m, nil
		case protocol.TypePing, protocol.TypeSessionEvent:
			continue
		}
		r.t.Fatalf("waiting for %q, got %#v", want, m)
	}
}

func (r *rawWS) expect(want string) protocol.Message {
	r.t.Helper()
	m, err := r.next(want)
	if err != nil {
		r.t.Fatalf("waiting for %q: %v", want, err)
	}
	return m
}

func joinRaw(t *testing.T, port int) *rawWS {
	t.Helper()
	r := dialWS(t, port, protocol.PathClient)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := kit.JoinClient(ctx, r.c, "test", kit.Token(t).Value); err != nil {
		t.Fatalf("join: %v", err)
	}
	return r
}

func TestDeepNestingDoesNotCrashTheHost(t *testing.T) {
	host, port := serveHost(t)
	_, sid := kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "good", RetryDelays: fakeRetry,
		Handler: func(_ string, payload json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Payload: payload} }})
	caller := joinRaw(t, port)
	calls := 0
	// stillServing: the same process is the host and relays a call.
	stillServing := func(t *testing.T) {
		t.Helper()
		if !host.Running() {
			t.Fatalf("the host died; stderr:\n%s", host.Stderr.String())
		}
		if h, err := kit.Health[bridge.Health](port); err != nil || h.PID != host.PID() {
			t.Fatalf("/health = %+v, %v; want the host (pid %d)", h, err, host.PID())
		}
		calls++
		id := strconv.Itoa(calls)
		caller.send(protocol.Request{ID: id, SessionID: sid, Action: "echo", Payload: json.RawMessage(`{"n":` + id + `}`)})
		if resp := caller.expect(protocol.TypeResponse).(protocol.Response); !resp.OK || string(resp.Payload) != `{"n":`+id+`}` {
			t.Fatalf("relayed echo = %+v", resp)
		}
	}
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n)) }
	deepRequest := func(n int) []byte {
		return []byte(`{"type":"request","id":"x","sessionId":"` + sid + `","action":"echo","payload":` + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "}")
	}
	hello := protocol.Hello{ProtocolVersions: []int{protocol.PluginProtocolVersion}, PluginVersion: "test", InstanceID: "deep", Nonce: protocol.NewNonce()}

	t.Run("before the handshake", func(t *testing.T) {
		for _, tt := range []struct {
			name, path string
			data       []byte
			close      websocket.StatusCode
		}{
			{"client, 4 MB of [", protocol.PathClient, deep(4 << 20), websocket.StatusMessageTooBig},
			{"client, 60 KiB of [", protocol.PathClient, deep(60 << 10), websocket.StatusPolicyViolation},
			{"plugin, 1 MiB of [", protocol.PathPlugin, deep(1 << 20), websocket.StatusMessageTooBig},
			{"plugin, 60 KiB of [", protocol.PathPlugin, deep(60 << 10), websocket.StatusPolicyViolation},
			{"plugin, hello with deep capabilities", protocol.PathPlugin,
				[]byte(`{"type":"hello","protocolVersions":[2],"capabilities":` + strings.Repeat(`{"a":`, 10000) + "}"), websocket.StatusPolicyViolation},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := dialWS(t, port, tt.path)
				r.write(tt.data)
				m, err := r.next(protocol.TypeReject)
				if tt.close == websocket.StatusPolicyViolation {
					if err != nil {
						t.Fatalf("no reject: %v", err)
					}
					if rej := m.(protocol.Reject); rej.Code != protocol.CodeInvalidHello || !strings.Contains(rej.Message, "deeper than") {
						t.Fatalf("reject %+v, want INVALID_HELLO saying the frame nests too deeply", rej)
					}
					_, err = r.next(protocol.TypeReject)
				}
				if got := websocket.CloseStatus(err); got != tt.close {
					t.Fatalf("closed with %v (status %d), want %d", err, got, tt.close)
				}
				stillServing(t)
			})
		}
	})

	t.Run("after the handshake", func(t *testing.T) {
		pl := dialWS(t, port, protocol.PathPlugin)
		pl.send(hello)
		w := pl.expect(protocol.TypeWelcome).(protocol.Welcome)
		// paired as the installed plugin is: the test token's key
		pl.send(protocol.Pair{Proof: protocol.PluginProof(kit.Token(t).PairingKey(), w.Nonce, hello.Nonce, hello.InstanceID)})
		// A socket reads only small frames until it attaches a session
		// (PROTOCOL.md 4): attach one, so the large frames below reach
		// the depth check.
		pl.send(protocol.Attach{Ref: "e", InstanceID: "deep", Context: protocol.ContextEdit, State: protocol.StateEdit})
		pl.expect(protocol.TypeAttached)
		for _, tt := range []struct {
			name string
			conn *rawWS
			data []byte
		}{
			// The plugin socket first, while it is fresh: it answers no
			// pings, and the client cases can outlast three heartbeats on
			// a loaded machine.
			{"plugin, 1 MiB of [", pl, deep(protocol.PluginMaxFrameBytes)},
			{"plugin, deep event", pl, []byte(`{"type":"event","event":"log","payload":` + strings.Repeat("[", 200000) + "}")},
			{"client, 4 MB of [", caller, deep(4 << 20)},
			{"client, 60 MB of [", caller, deep(60 << 20)},
			{"client, request with a deep payload", caller, deepRequest(100000)},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.conn.write(tt.data)
				notice := tt.conn.expect(protocol.TypeError).(protocol.ErrorNotice)
				if notice.Code != protocol.CodeMalformedFrame || !strings.Contains(notice.Message, "deeper than") {
					t.Fatalf("error notice %+v, want MALFORMED_FRAME saying the frame nests too deeply", notice)
				}
				stamp := time.Now().UnixNano()
				tt.conn.send(protocol.Ping{T: stamp})
				if pong := tt.conn.expect(protocol.TypePong).(protocol.Pong); pong.T != stamp {
					t.Fatalf("pong %d, want %d: the connection is not served", pong.T, stamp)
				}
				stillServing(t)
			})
		}
	})
}

// The MCP HTTP body against the real binary: the SDK's JSON decoder
// recurses once per nesting level, so a body of nested "[" could kill the
// server. Every bad body gets a JSON-RPC error, and the server keeps going.
func TestMCPHTTPBadBodies(t *testing.T) {
	bridgePort, httpPort := kit.FreePort(t), kit.FreePort(t)
	server := start(t, "mcp", nil, "mcp", "--http", "127.0.0.1:"+strconv.Itoa(httpPort), "--port", strconv.Itoa(bridgePort))
	kit.WaitFor(t, 10*time.Second, "the MCP server to listen", func() bool {
		if !server.Running() {
			t.Fatalf("mcp exited; stderr:\n%s", server.Stderr.String())
		}
		return strings.Contains(server.Stderr.String(), "MCP server: http://")
	})
	post := func(body []byte) (int, []byte) {
		t.Helper()
		auth := kit.MCPAuth(t)
		resp, out, err := kit.PostMCP(fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort), string(body), func(r *http.Request) {
			auth(r)
			// a client that may be refused a large body asks first: the
			// server refuses an oversize body unread, before it is sent
			r.Header.Set("Expect", "100-continue")
		})
		if err != nil {
			t.Fatalf("POST /mcp: %v (server running: %v)\n%s", err, server.Running(), server.Stderr.String())
		}
		return resp.StatusCode, out
	}
	initialize := func(params string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)
	}
	goodParams := `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`
	for _, tt := range []struct {
		name   string
		body   []byte
		status int
		code   int
	}{
		{"4 MB of [", bytes.Repeat([]byte("["), 4<<20-1), http.StatusBadRequest, -32700},
		{"deep params", initialize(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)), http.StatusBadRequest, -32700},
		{"not JSON", []byte(`{"jsonrpc":"2.0",`), http.StatusBadRequest, -32700},
		{"too large", bytes.Repeat([]byte(" "), 5<<20), http.StatusRequestEntityTooLarge, -32600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, out := post(tt.body)
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct{ Code int }
			}
			if err := json.Unmarshal(out, &resp); err != nil || status != tt.status || resp.Error.Code != tt.code || resp.JSONRPC != "2.0" || string(resp.ID) != "null" {
				t.Fatalf("POST = %d %s (%v); want %d with JSON-RPC error %d", status, out, err, tt.status, tt.code)
			}
			if !server.Running() {
				t.Fatalf("the MCP server died:\n%s", server.Stderr.String())
			}
		})
	}
	if status, out := post(initialize(goodParams)); status != http.StatusOK || !strings.Contains(string(out), `"serverInfo"`) {
		t.Fatalf("initialize after bad bodies = %d %s", status, out)
	}
}
