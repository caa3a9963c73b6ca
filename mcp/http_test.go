package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestHTTPHostIsCaseInsensitive: the Streamable HTTP endpoint accepts a
// loopback Host in any case (LOCALHOST is localhost) and still refuses a
// name that is not loopback (DNS rebinding).
func TestHTTPHostIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.server(t, Options{})
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
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			resp, _, err := kit.PostMCP(srv.URL, kit.MCPInitialize, func(req *http.Request) { req.Host = tt.host })
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.want {
				t.Fatalf("Host %q: %d, want %d", tt.host, resp.StatusCode, tt.want)
			}
		})
	}
}
func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"", true},
		{"localhost", true},
		{"LocalHost", true},
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"[::1]", true},
		{"0.0.0.0", false},
		{"::", false},
		{"192.168.1.5", false},
		{"10.0.0.1", false},
		{"example.com", false},
		{"localhost.example.com", false},
	} {
		if got := LoopbackHost(tt.host); got != tt.want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestBearerAuth(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef0123456789abcdef"
	reached := 0
	h := BearerAuth(token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusNoContent)
	}))
	for _, tt := range []struct {
		name, header string
		want         int
		invalid      bool // the challenge says invalid_token
	}{
		{"no header", "", http.StatusUnauthorized, false},
		{"the token", "Bearer " + token, http.StatusNoContent, false},
		{"scheme in lower case", "bearer " + token, http.StatusNoContent, false},
		{"wrong token", "Bearer " + strings.Repeat("x", len(token)), http.StatusUnauthorized, true},
		{"a prefix of the token", "Bearer " + token[:10], http.StatusUnauthorized, true},
		{"the token and more", "Bearer " + token + "x", http.StatusUnauthorized, true},
		{"basic auth", "Basic " + token, http.StatusUnauthorized, false},
		{"the bare token", token, http.StatusUnauthorized, false},
		{"empty bearer", "Bearer ", http.StatusUnauthorized, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := reached
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d", rec.Code, tt.want)
			}
			if tt.want != http.StatusUnauthorized {
				if reached != before+1 {
					t.Fatal("an authorized request did not reach the handler")
				}
				return
			}
			if reached != before {
				t.Fatal("an unauthorized request reached the MCP handler")
			}
			challenge := rec.Header().Get("WWW-Authenticate")
			if !strings.HasPrefix(challenge, "Bearer ") || strings.Contains(challenge, "invalid_token") != tt.invalid {
				t.Fatalf("WWW-Authenticate %q", challenge)
			}
			if strings.Contains(rec.Body.String(), token) {
				t.Fatal("the 401 shows the token")
			}
		})
	}
}
