package bridge

// Requests from a browser (an Origin or Sec-Fetch header, a Host that is
// not loopback, as in DNS rebinding) are refused and logged; loopback Hosts
// are served.

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestBrowserRequestsRefused(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	p := strconv.Itoa(tb.port)
	refused := []struct {
		name string
		hdr  http.Header
		host string
	}{
		{"Origin of a web page", http.Header{"Origin": {"https://evil.example"}}, ""},
		{"Origin of a loopback page", http.Header{"Origin": {"http://127.0.0.1:" + p}}, ""},
		{"Origin null", http.Header{"Origin": {"null"}}, ""},
		{"Sec-Fetch-Site cross-site", http.Header{"Sec-Fetch-Site": {"cross-site"}}, ""},
		{"Sec-Fetch-Site same-origin", http.Header{"Sec-Fetch-Site": {"same-origin"}}, ""},
		{"Sec-Fetch-Mode", http.Header{"Sec-Fetch-Mode": {"websocket"}}, ""},
		{"DNS rebinding Host", nil, "evil.example:" + p},
		{"DNS rebinding Host without port", nil, "evil.example"},
		{"Host of a LAN address", nil, "192.168.1.10:" + p},
		{"Host that ends like localhost", nil, "localhost.evil.example:" + p},
		{"Host 0.0.0.0", nil, "0.0.0.0:" + p},
	}
	accepted := []string{"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p, "LOCALHOST:" + p, "127.0.0.1", "localhost", "127.5.6.7:" + p}

	for _, tt := range refused {
		t.Run("refused/"+tt.name, func(t *testing.T) {
			code, body := getHealth(t, tb.port, tt.hdr, tt.host)
			if code != http.StatusForbidden || !strings.Contains(body, "studio-bridge") {
				t.Fatalf("GET /health = %d %q, want 403", code, body)
			}
			for _, path := range []string{protocol.PathPlugin, protocol.PathClient} {
				c, resp, err := dialRaw(tb.port, path, tt.hdr, tt.host)
				if err == nil {
					_ = c.CloseNow()
					t.Fatalf("upgrade to %s accepted", path)
				}
				if resp == nil || resp.StatusCode != http.StatusForbidden {
					t.Fatalf("upgrade to %s: %v (response %v), want 403", path, err, resp)
				}
			}
			tb.assertServing(t)
		})
	}
	for _, host := range accepted {
		t.Run("accepted/"+host, func(t *testing.T) {
			if code, body := getHealth(t, tb.port, nil, host); code != http.StatusOK {
				t.Fatalf("GET /health with Host %s = %d %q", host, code, body)
			}
			for _, ep := range []struct {
				path    string
				hello   protocol.Message
				welcome string
			}{
				{protocol.PathPlugin, goodHello("loopback"), protocol.TypeWelcome},
				{protocol.PathClient, clientHello(t), protocol.TypeClientChallenge}, // the hello is accepted: the host proves itself
			} {
				c, _, err := dialRaw(tb.port, ep.path, nil, host)
				if err != nil {
					t.Fatalf("upgrade to %s with Host %s: %v", ep.path, host, err)
				}
				r := &rawConn{t: t, c: c}
				r.send(ep.hello)
				r.expect(ep.welcome)
				_ = c.Close(websocket.StatusNormalClosure, "")
			}
			tb.assertServing(t)
		})
	}
}

// TestRefusedRequestsAreLogged: every refused request is logged with the
// header that caused it, so a user whose Studio is refused can report what
// it sent.
func TestRefusedRequestsAreLogged(t *testing.T) {
	t.Parallel()
	var logs kit.Buffer
	tb := newTestBedWith(t, Options{Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	p := strconv.Itoa(tb.port)
	for _, tt := range []struct {
		hdr  http.Header
		host string
		want []string
	}{
		{http.Header{"Origin": {"https://evil.example"}}, "", []string{"header=Origin", "value=https://evil.example", "path=/plugin", "upgrade=true"}},
		{http.Header{"Sec-Fetch-Mode": {"websocket"}}, "", []string{"header=Sec-Fetch-Mode", "value=websocket"}},
		{nil, "evil.example:" + p, []string{"header=Host", "value=evil.example:" + p}},
	} {
		if c, _, err := dialRaw(tb.port, protocol.PathPlugin, tt.hdr, tt.host); err == nil {
			_ = c.CloseNow()
			t.Fatalf("upgrade with %v accepted", tt.hdr)
		}
		for _, w := range tt.want {
			if !strings.Contains(logs.String(), w) {
				t.Fatalf("log lacks %q:\n%s", w, logs.String())
			}
		}
	}
}

// getHealth GETs /health with extra headers and an optional Host header.
func getHealth(t *testing.T, port int, hdr http.Header, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, protocol.PathHealth), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if host != "" {
		req.Host = host
	}
	resp, err := noKeepAlive().Do(req)
	if err != nil {
		t.Fatalf("GET /health: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
