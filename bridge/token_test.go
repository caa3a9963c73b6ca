package bridge

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// clientHello is a good client-hello: this build's versions and the test's
// token (the one its bridges resolve after kit.UseConfigDir).
func clientHello(t testing.TB) protocol.ClientHello {
	return protocol.ClientHello{ProtocolVersions: protocol.ClientOfferedVersions, ClientVersion: "1.0.0", Token: kit.Token(t).Value}
}

// TestClientsNeedTheToken: a client-hello without the user's token, or with
// a wrong one, is refused (reject UNAUTHORIZED naming the token file, then
// 1008), the host keeps serving, and nothing of the token reaches the log.
func TestClientsNeedTheToken(t *testing.T) {
	var logBuf kit.Buffer
	tb := newTestBedWith(t, Options{Log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	path := filepath.Join(kit.ConfigDir(t), authtoken.FileName)
	good := clientHello(t)
	tests := []struct {
		name  string
		token string
		want  string
	}{
		{"no token", "", "no token"},
		{"wrong token", authtoken.Generate(), "wrong token"},
		{"the token with one more character", good.Token + "x", "wrong token"},
		{"a prefix of the token", good.Token[:20], "wrong token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := openRaw(t, tb.port, protocol.PathClient)
			hello := good
			hello.Token = tt.token
			r.send(hello)
			// The reason, and where the token lives.
			r.expectReject(protocol.CodeUnauthorized, tt.want, path, "studio-bridge token")
			ce := r.expectClose(websocket.StatusPolicyViolation)
			if len(ce.Reason) > 123 || !strings.HasPrefix(ce.Reason, "UNAUTHORIZED: "+tt.want) {
				t.Fatalf("close reason %q (%d bytes)", ce.Reason, len(ce.Reason))
			}
		})
	}
	r, _ := rawClient(t, tb.port) // the right token still joins
	_ = r.c.Close(websocket.StatusNormalClosure, "")
	tb.assertServing(t)
	if strings.Contains(logBuf.String(), good.Token) {
		t.Fatal("the host logged the token")
	}
}

// TestWrongTokenFailsTheJoin: a process whose token differs from the
// host's (a stale STUDIO_BRIDGE_TOKEN) is told so at once, and does not
// try to take the port.
func TestWrongTokenFailsTheJoin(t *testing.T) {
	port := kit.FreePort(t)
	connect(t, port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t.Setenv(authtoken.EnvToken, authtoken.Generate())
	_, err := Connect(ctx, Options{Port: port, Log: testLog(t)})
	if protocol.CodeOf(err) != protocol.CodeUnauthorized || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("join with a wrong token: %v", err)
	}
}

// TestTokenSurvivesFailover: the client that takes the port over accepts
// the same token the lost host did (it is never rotated), so a process
// started afterwards joins it.
func TestTokenSurvivesFailover(t *testing.T) {
	port := kit.FreePort(t)
	host := connect(t, port)
	standby := connect(t, port)
	if standby.Role() != RoleClient {
		t.Fatalf("standby role %s", standby.Role())
	}
	before, err := os.ReadFile(filepath.Join(kit.ConfigDir(t), authtoken.FileName))
	if err != nil {
		t.Fatal(err)
	}
	host.Kill()
	kit.WaitFor(t, 10*time.Second, "the standby to take over", func() bool { return standby.Role() == RoleHost })
	late := connect(t, port)
	if late.Role() != RoleClient {
		t.Fatalf("a process started after the failover is %s, want a client of the new host", late.Role())
	}
	after, _ := os.ReadFile(filepath.Join(kit.ConfigDir(t), authtoken.FileName))
	if string(after) != string(before) {
		t.Fatal("the token file changed across the failover")
	}
}

// TestHostWithoutTokenRefusesEveryone: a Host configured without a token
// (NewHost with a zero Token) admits no client, saying how to give it one.
func TestHostWithoutTokenRefusesEveryone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(HostConfig{Listener: ln, Log: testLog(t)})
	t.Cleanup(h.Kill)
	r := openRaw(t, ln.Addr().(*net.TCPAddr).Port, protocol.PathClient)
	r.send(clientHello(t))
	r.expectReject(protocol.CodeUnauthorized, authtoken.EnvToken)
}

// TestOldClientRefusedWithAReason: a client of the protocol before the
// token (it offers [1] only) is told to update, not left guessing.
func TestOldClientRefusedWithAReason(t *testing.T) {
	tb := newTestBed(t)
	r := openRaw(t, tb.port, protocol.PathClient)
	r.send(protocol.ClientHello{ProtocolVersions: []int{1}, ClientVersion: "0.1.0"})
	r.expectReject(protocol.CodeUnsupportedProtocol, "[2]")
}
