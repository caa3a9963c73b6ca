package cli

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/mcp"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestMCPHTTPRefusesNonLoopback: `mcp --http` beyond loopback is a usage
// error (exit 2) saying why and what to do, unless --allow-remote; and
// --allow-remote means nothing without --http.
func TestMCPHTTPRefusesNonLoopback(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"any address", []string{"--http", "0.0.0.0:8765"}, []string{"not a loopback address", "--allow-remote", "127.0.0.1:8765"}},
		{"IPv6 any", []string{"--http", "[::]:8765"}, []string{"not a loopback address", "--allow-remote"}},
		{"a LAN address", []string{"--http", "192.168.1.5:8765"}, []string{"not a loopback address", "--allow-remote"}},
		{"a host name", []string{"--http", "studio-box.example:8765"}, []string{"not a loopback address"}},
		{"--allow-remote without --http", []string{"--allow-remote"}, []string{"--allow-remote applies to --http only"}},
		{"a bad chosen token", []string{"--http", "0.0.0.0:8765", "--allow-remote"}, []string{mcp.EnvHTTPToken, "16 to 256"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(mcp.EnvHTTPToken, "")
			if strings.HasPrefix(tt.name, "a bad chosen token") {
				t.Setenv(mcp.EnvHTTPToken, "short")
			}
			_, _, err := run(t, append([]string{"--port", freePort(t), "mcp"}, tt.args...)...)
			var ue commands.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err %v; want a usage error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestMCPHTTPAllowRemoteNeedsTheBearerToken: with --allow-remote every
// request needs the bearer token: the generated one, printed once on
// stderr with a warning, or the one from STUDIO_BRIDGE_MCP_TOKEN, never
// printed. Without it: 401 with a Bearer challenge.
func TestMCPHTTPAllowRemoteNeedsTheBearerToken(t *testing.T) {
	for _, chosen := range []string{"", "a-token-the-user-chose-for-mcp"} {
		name := "generated"
		if chosen != "" {
			name = "from " + mcp.EnvHTTPToken
		}
		t.Run(name, func(t *testing.T) {
			t.Setenv(mcp.EnvHTTPToken, chosen)
			port, hport := freePort(t), kit.FreePort(t)
			var stderr kit.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, []string{"studio-bridge", "--port", port, "mcp", "--http", "0.0.0.0:" + strconv.Itoa(hport), "--allow-remote"},
					IO{In: strings.NewReader(""), Out: new(kit.Buffer), Err: &stderr})
			}()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("mcp --http ended with %v", err)
				}
			}()
			kit.WaitFor(t, 10*time.Second, "the MCP server to listen", func() bool {
				return strings.Contains(stderr.String(), "bearer token") || strings.Contains(stderr.String(), "Bearer ")
			})
			out := stderr.String()
			if !strings.Contains(out, "warning: serving beyond loopback") {
				t.Errorf("no warning on stderr:\n%s", out)
			}
			token := chosen
			if chosen == "" {
				m := regexp.MustCompile("Authorization: Bearer ([A-Za-z0-9_-]{43})`").FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("no generated token on stderr:\n%s", out)
				}
				token = m[1]
				if strings.Count(out, token) != 1 {
					t.Errorf("the token is printed %d times, want once:\n%s", strings.Count(out, token), out)
				}
			} else if strings.Contains(out, chosen) {
				t.Errorf("the chosen token is printed:\n%s", out)
			}

			url := "http://127.0.0.1:" + strconv.Itoa(hport) + "/mcp"
			for _, tt := range []struct {
				name, auth string
				want       int
			}{
				{"no token", "", http.StatusUnauthorized},
				{"wrong token", "Bearer " + strings.Repeat("x", 43), http.StatusUnauthorized},
				{"the token", "Bearer " + token, http.StatusOK},
			} {
				resp := postInitialize(t, url, tt.auth)
				if resp.StatusCode != tt.want {
					t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.want)
				}
				if tt.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s: WWW-Authenticate %q", tt.name, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
}

// TestMCPHTTPLoopbackNeedsNoToken: on loopback (the default) nothing
// changes: no token, no warning.
func TestMCPHTTPLoopbackNeedsNoToken(t *testing.T) {
	port, hport := freePort(t), kit.FreePort(t)
	var stderr kit.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"studio-bridge", "--port", port, "mcp", "--http", ":" + strconv.Itoa(hport)},
			IO{In: strings.NewReader(""), Out: new(kit.Buffer), Err: &stderr})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("mcp --http ended with %v", err)
		}
	}()
	kit.WaitFor(t, 10*time.Second, "the MCP server to listen", func() bool { return strings.Contains(stderr.String(), "/mcp") })
	if resp := postInitialize(t, "http://127.0.0.1:"+strconv.Itoa(hport)+"/mcp", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if out := stderr.String(); strings.Contains(out, "warning") || strings.Contains(out, "Bearer") {
		t.Fatalf("loopback stderr:\n%s", out)
	}
}

// postInitialize sends an MCP initialize request and returns the answer
// (its body read and closed).
func postInitialize(t *testing.T, url, auth string) *http.Response {
	t.Helper()
	resp, _, err := kit.PostMCP(url, kit.MCPInitialize, func(req *http.Request) {
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
