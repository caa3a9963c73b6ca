package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPHostIsCaseInsensitive: the Streamable HTTP endpoint accepts a
// loopback Host in any case (LOCALHOST is localhost) and still refuses a
// name that is not loopback (DNS rebinding).
func TestHTTPHostIsCaseInsensitive(t *testing.T) {
	w := newWorld(t)
	s, err := New(w.bridge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(CanonicalHost(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{Stateless: true}))) // stateless: no session outlives the test (goleak); the Host check is the same
	defer srv.Close()
	port := srv.Listener.Addr().String()[strings.LastIndex(srv.Listener.Addr().String(), ":")+1:]
	tests := []struct {
		host string
		want int
	}{
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST:" + port, http.StatusOK},
		{"LocalHost", http.StatusOK},
		{"127.0.0.1:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusForbidden},
		{"EVIL.example", http.StatusForbidden},
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("Host %q: %d, want %d", tt.host, resp.StatusCode, tt.want)
			}
		})
	}
}
