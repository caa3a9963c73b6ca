package cli

import (
	"context"
	"errors"
	"net/http"
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
		{"a bad chosen token on loopback", []string{"--http", "127.0.0.1:8765"}, []string{mcp.EnvHTTPToken, "16 to 256"}},
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

// TestMCPHTTPNeedsTheMCPToken: every request needs the MCP token, on
// loopback (attack 1 of issue #22: any local process called studio_exec)
// and beyond it: the token file's (what `token --mcp` prints) or
// STUDIO_BRIDGE_MCP_TOKEN's, never the user's own token, and never printed.
// Without it: 401 with a Bearer challenge.
func TestMCPHTTPNeedsTheMCPToken(t *testing.T) {
	for _, tt := range []struct {
		name, host, chosen string
		remote             bool
	}{
		{"loopback, the file's token", "127.0.0.1", "", false},
		{"loopback default host, from " + mcp.EnvHTTPToken, "", "a-token-the-user-chose-for-mcp", false},
		{"beyond loopback, the file's token", "0.0.0.0", "", true},
		{"beyond loopback, from " + mcp.EnvHTTPToken, "0.0.0.0", "a-token-the-user-chose-for-mcp", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kit.UseConfigDir(t)
			t.Setenv(mcp.EnvHTTPToken, tt.chosen)
			port, hport := freePort(t), kit.FreePort(t)
			args := []string{"studio-bridge", "--port", port, "mcp", "--http", tt.host + ":" + strconv.Itoa(hport)}
			if tt.remote {
				args = append(args, "--allow-remote")
			}
			var stderr kit.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, args, IO{In: strings.NewReader(""), Out: new(kit.Buffer), Err: &stderr})
			}()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("mcp --http ended with %v", err)
				}
			}()
			kit.WaitFor(t, 10*time.Second, "the MCP server to listen", func() bool {
				return strings.Contains(stderr.String(), "Authorization: Bearer")
			})
			out := stderr.String()
			if got := strings.Contains(out, "warning: serving beyond loopback"); got != tt.remote {
				t.Errorf("warning on stderr: %v, want %v:\n%s", got, tt.remote, out)
			}
			token := tt.chosen
			if token == "" {
				token = kit.MCPToken(t).Value
			}
			if strings.Contains(out, token) {
				t.Errorf("the MCP token is printed:\n%s", out)
			}
			url := "http://127.0.0.1:" + strconv.Itoa(hport) + "/mcp"
			for _, c := range []struct {
				name, auth string
				want       int
			}{
				{"no token", "", http.StatusUnauthorized},
				{"wrong token", "Bearer " + strings.Repeat("x", 43), http.StatusUnauthorized},
				{"the user's own token", "Bearer " + kit.Token(t).Value, http.StatusUnauthorized},
				{"the MCP token", "Bearer " + token, http.StatusOK},
			} {
				resp := postInitialize(t, url, c.auth)
				if resp.StatusCode != c.want {
					t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
				}
				if c.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s: WWW-Authenticate %q", c.name, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
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
