package bridge

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// rogueHost is issue #22's attack 12: a process on the bridge port that
// answers /health as studio-bridge and records every frame clients send
// on /client. answer is how it meets a client-hello.
type rogueHost struct {
	port int
	mu   sync.Mutex
	got  []string // every frame received, in order
}

func startRogue(t *testing.T, answer func(hello protocol.ClientHello) protocol.Message) *rogueHost {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &rogueHost{port: ln.Addr().(*net.TCPAddr).Port}
	mux := http.NewServeMux()
	mux.HandleFunc(protocol.PathHealth, func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(Health{Service: protocol.ServiceName, Status: "ok", PID: os.Getpid()})
	})
	mux.HandleFunc(protocol.PathClient, func(w http.ResponseWriter, req *http.Request) {
		c, err := websocket.Accept(w, req, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx, cancel := context.WithTimeout(req.Context(), 5*time.Second)
		defer cancel()
		for first := true; ; first = false {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			r.mu.Lock()
			r.got = append(r.got, string(data))
			r.mu.Unlock()
			if !first {
				continue
			}
			m, err := protocol.Decode(data)
			hello, ok := m.(protocol.ClientHello)
			if err != nil || !ok {
				return
			}
			if a := answer(hello); a != nil {
				out, _ := protocol.Encode(a)
				_ = c.Write(ctx, websocket.MessageText, out)
			}
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

func (r *rogueHost) frames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// TestRogueHostCollectsNothingReusable: whatever a rogue on the port
// answers (a made-up challenge, a welcome without one, a challenge copied
// from a real host for another nonce), a client sends it a
// hello with a nonce and nothing else: not the token, not the derived key,
// no proof. The join fails with an error naming the port and, on Linux,
// the process holding it, and this process does not take the port.
func TestRogueHostCollectsNothingReusable(t *testing.T) {
	kit.UseConfigDir(t)
	token := kit.Token(t).Value
	key := authtoken.ClientKey(token)
	secrets := []string{token, string(key), hex.EncodeToString(key), base64.RawURLEncoding.EncodeToString(key), base64.StdEncoding.EncodeToString(key)}

	// A challenge a real host made for some other client's nonce.
	other, _ := authtoken.DecodeNonce(authtoken.NewNonce())
	hn, _ := authtoken.DecodeNonce(authtoken.NewNonce())
	replayed := protocol.ClientChallenge{Nonce: base64.RawURLEncoding.EncodeToString(hn), Proof: authtoken.HostProof(key, other, hn)}

	for _, tt := range []struct {
		name   string
		answer func(protocol.ClientHello) protocol.Message
		says   string
	}{
		{"a made-up challenge", func(protocol.ClientHello) protocol.Message {
			return protocol.ClientChallenge{Nonce: authtoken.NewNonce(), Proof: authtoken.NewNonce()}
		}, "its proof of your token is wrong"},
		{"a replayed challenge", func(protocol.ClientHello) protocol.Message { return replayed }, "its proof of your token is wrong"},
		{"a welcome without a challenge", func(protocol.ClientHello) protocol.Message {
			return protocol.ClientWelcome{ProtocolVersion: 3, ClientID: "x", HeartbeatIntervalMs: 1000}
		}, "welcomed this process without proving"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rogue := startRogue(t, tt.answer)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			b, err := Connect(ctx, Options{Port: rogue.port, Version: "1.0.0", Log: testLog(t), JoinTimeout: 3 * time.Second})
			if err == nil {
				b.Kill()
				t.Fatal("joined a rogue host")
			}
			msg := err.Error()
			for _, w := range []string{tt.says, "port " + strconv.Itoa(rogue.port), "wrong token: ", authtoken.EnvToken, authtoken.EnvConfigDir, kit.ConfigDir(t)} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if h, ok := ProcessOnPort(strconv.Itoa(rogue.port)); ok && !strings.Contains(msg, h.String()) {
				t.Errorf("error %q does not name the holder %s", msg, h)
			}
			got := rogue.frames()
			if len(got) != 1 {
				t.Fatalf("the rogue received %d frames, want the hello only: %q", len(got), got)
			}
			var hello map[string]any
			if err := json.Unmarshal([]byte(got[0]), &hello); err != nil {
				t.Fatal(err)
			}
			for k := range hello {
				switch k {
				case "type", "protocolVersions", "clientVersion", "pid", "nonce":
				default:
					t.Errorf("the hello carries %q", k)
				}
			}
			for _, s := range secrets {
				if strings.Contains(got[0], s) {
					t.Fatal("the rogue received the token or its derived key")
				}
			}
		})
	}
}

// TestOlderHostOnThePort: a host of client protocol 2 refuses this build's
// hello as unsupported (as 0.x hosts do); the client says another version
// holds the port and what to do, and sent it no token.
func TestOlderHostOnThePort(t *testing.T) {
	kit.UseConfigDir(t)
	old := startRogue(t, func(h protocol.ClientHello) protocol.Message {
		return protocol.Reject{Code: protocol.CodeUnsupportedProtocol, Message: "bridge host speaks protocol version(s) [2] but this studio-bridge offered [3]; run the same studio-bridge version everywhere"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := Connect(ctx, Options{Port: old.port, Version: "1.0.0", Log: testLog(t), JoinTimeout: 3 * time.Second})
	if err == nil {
		b.Kill()
		t.Fatal("joined a host of another protocol")
	}
	if want := "another studio-bridge version holds port " + strconv.Itoa(old.port) + ": stop it or upgrade"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	if got := old.frames(); len(got) != 1 || strings.Contains(got[0], kit.Token(t).Value) {
		t.Fatalf("the older host received %q", got)
	}
}
