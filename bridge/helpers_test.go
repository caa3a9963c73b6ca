package bridge

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func testLog(t testing.TB) *slog.Logger {
	if os.Getenv("BRIDGE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// testGrace is the resolution grace of test bridges: their fake plugins
// retry every 50 ms, not every 2 s as the real plugin searches.
const testGrace = 300 * time.Millisecond

// connect starts a test bridge on port (the host if none runs there, else
// a client of it), killed at cleanup.
func connect(t testing.TB, port int) *Bridge {
	t.Helper()
	return connectWith(t, port, Options{})
}

// connectWith is connect with options (heartbeat, logger); what opts leaves
// unset is the test default.
func connectWith(t testing.TB, port int, opts Options) *Bridge {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // generous, for a loaded machine
	defer cancel()
	opts.Port = port
	if opts.Token.Value == "" {
		opts.Token = kit.Token(t)
	}
	if opts.Version == "" {
		opts.Version = "1.0.0"
	}
	if opts.Log == nil {
		opts.Log = testLog(t)
	}
	if opts.Grace == 0 {
		opts.Grace = testGrace
	}
	b, err := Connect(ctx, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(b.Kill)
	return b
}

// hostAndClient starts a host on a free port and a second bridge that joins
// it as a client.
func hostAndClient(t testing.TB) (port int, host, client *Bridge) {
	t.Helper()
	port = kit.FreePort(t)
	host = connect(t, port)
	client = connect(t, port)
	if host.Role() != RoleHost || client.Role() != RoleClient {
		t.Fatalf("roles: %s, %s; want host, client", host.Role(), client.Role())
	}
	return port, host, client
}

// waitSessions waits until b lists exactly n sessions.
func waitSessions(t testing.TB, b Conn, n int) []protocol.SessionInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := b.Sessions(context.Background())
		if err == nil && len(s) == n {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d sessions, have %d (err %v)", n, len(s), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
