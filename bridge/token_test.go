package bridge

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// clientHello is a good client-hello: this build's versions and a fresh
// nonce. It carries no secret; rawJoin finishes the handshake.
func clientHello(t testing.TB) protocol.ClientHello {
	return protocol.ClientHello{ProtocolVersions: protocol.ClientOfferedVersions, ClientVersion: "1.0.0", Nonce: authtoken.NewNonce()}
}

// rawJoin runs the client handshake on r with hello and the test's token
// (kit.Token, the one its bridges are given): it checks the
// host's proof, answers with ours and returns the welcome.
func rawJoin(t testing.TB, r *rawConn, hello protocol.ClientHello) protocol.ClientWelcome {
	t.Helper()
	r.send(hello)
	ch := r.expect(protocol.TypeClientChallenge).(protocol.ClientChallenge)
	key := authtoken.ClientKey(kit.Token(t).Value)
	cn, _ := authtoken.DecodeNonce(hello.Nonce)
	hn, err := authtoken.DecodeNonce(ch.Nonce)
	if err != nil || !authtoken.ProofEqual(ch.Proof, authtoken.HostProof(key, cn, hn)) {
		t.Fatalf("the host's proof does not verify (nonce %v)", err)
	}
	r.send(protocol.ClientProof{Proof: authtoken.ClientProof(key, cn, hn)})
	return r.expect(protocol.TypeClientWelcome).(protocol.ClientWelcome)
}

// TestClientsNeedTheToken: a client that cannot prove it holds the user's
// token (a wrong proof, one for another nonce, or one made with another
// token) is refused (reject UNAUTHORIZED naming the token file, then 1008),
// the host keeps serving, and nothing of the token reaches the log.
func TestClientsNeedTheToken(t *testing.T) {
	t.Parallel()
	var logBuf kit.Buffer
	tb := newTestBedWith(t, Options{Log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	path := filepath.Join(kit.ConfigDir(t), authtoken.FileName)
	token := kit.Token(t).Value
	tests := []struct {
		name  string
		proof func(cn, hn []byte) string
	}{
		{"no proof", func(cn, hn []byte) string { return "" }},
		{"another token's proof", func(cn, hn []byte) string {
			return authtoken.ClientProof(authtoken.ClientKey(authtoken.Generate()), cn, hn)
		}},
		{"the host's own proof sent back", func(cn, hn []byte) string { return authtoken.HostProof(authtoken.ClientKey(token), cn, hn) }},
		{"a proof for another host nonce", func(cn, _ []byte) string {
			other, _ := authtoken.DecodeNonce(authtoken.NewNonce())
			return authtoken.ClientProof(authtoken.ClientKey(token), cn, other)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := openRaw(t, tb.port, protocol.PathClient)
			hello := clientHello(t)
			r.send(hello)
			ch := r.expect(protocol.TypeClientChallenge).(protocol.ClientChallenge)
			cn, _ := authtoken.DecodeNonce(hello.Nonce)
			hn, _ := authtoken.DecodeNonce(ch.Nonce)
			r.send(protocol.ClientProof{Proof: tt.proof(cn, hn)})
			// The reason, and where the token lives.
			r.expectReject(protocol.CodeUnauthorized, "wrong token", path, "studio-bridge token")
			ce := r.expectClose(websocket.StatusPolicyViolation)
			if len(ce.Reason) > 123 || !strings.HasPrefix(ce.Reason, "UNAUTHORIZED: wrong token") {
				t.Fatalf("close reason %q (%d bytes)", ce.Reason, len(ce.Reason))
			}
		})
	}
	r, _ := rawClient(t, tb.port) // the right token still joins
	_ = r.c.Close(websocket.StatusNormalClosure, "")
	tb.assertServing(t)
	if strings.Contains(logBuf.String(), token) {
		t.Fatal("the host logged the token")
	}
}

// TestWrongTokenFailsTheJoin: a process whose token differs from the
// host's (a stale STUDIO_BRIDGE_TOKEN) is told so at once, and does not
// try to take the port.
func TestWrongTokenFailsTheJoin(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	connect(t, port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Connect(ctx, Options{Token: authtoken.Token{Value: authtoken.Generate(), Source: authtoken.EnvToken}, Port: port, Log: testLog(t)})
	if protocol.CodeOf(err) != protocol.CodeUnauthorized || !strings.Contains(err.Error(), "wrong token") || !strings.Contains(err.Error(), authtoken.EnvToken) {
		t.Fatalf("join with a wrong token: %v", err)
	}
}

// TestTokenSurvivesFailover: the client that takes the port over accepts
// the same token the lost host did (it is never rotated), so a process
// started afterwards joins it.
func TestTokenSurvivesFailover(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(HostConfig{Listener: ln, Log: testLog(t)})
	t.Cleanup(h.Kill)
	r := openRaw(t, ln.Addr().(*net.TCPAddr).Port, protocol.PathClient)
	r.send(clientHello(t))
	r.expectReject(protocol.CodeUnauthorized, authtoken.EnvToken) // before any proof: it has nothing to prove
}

// TestOldClientRefusedWithAReason: a client of an older protocol (1: no
// token; 2: the raw token) is told another version holds the port, naming
// it, not left guessing.
func TestOldClientRefusedWithAReason(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	for _, offered := range [][]int{{1}, {2, 1}} {
		r := openRaw(t, tb.port, protocol.PathClient)
		r.send(protocol.ClientHello{ProtocolVersions: offered, ClientVersion: "0.1.0", Token: kit.Token(t).Value})
		r.expectReject(protocol.CodeUnsupportedProtocol, "another studio-bridge version holds port "+strconv.Itoa(tb.port), "stop it or upgrade", "[3]")
	}
}

// TestReturningTravelsInTheProof: a rejoining client names the sessions it
// expects back in client-proof, after the host proved itself, and the list
// is bounded there as it was in the hello.
func TestReturningTravelsInTheProof(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	key := authtoken.ClientKey(kit.Token(t).Value)
	join := func(returning []string) *rawConn {
		r := openRaw(t, tb.port, protocol.PathClient)
		hello := clientHello(t)
		r.send(hello)
		ch := r.expect(protocol.TypeClientChallenge).(protocol.ClientChallenge)
		cn, _ := authtoken.DecodeNonce(hello.Nonce)
		hn, _ := authtoken.DecodeNonce(ch.Nonce)
		r.send(protocol.ClientProof{Proof: authtoken.ClientProof(key, cn, hn), Returning: returning})
		return r
	}
	many := make([]string, protocol.MaxReturning+1)
	for i := range many {
		many[i] = "session-" + strconv.Itoa(i)
	}
	join(many).expectReject(protocol.CodeInvalidHello, "client-proof", "returning")
	r := join([]string{"a-lost-session"})
	if w := r.expect(protocol.TypeClientWelcome).(protocol.ClientWelcome); w.ClientID == "" {
		t.Fatal("welcome without a client id")
	}
	tb.assertServing(t)
}
