package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

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
		resp, out, err := kit.PostMCP(fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort), string(body), nil)
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
