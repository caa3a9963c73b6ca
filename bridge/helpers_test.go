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

func connect(t testing.TB, port int) *Bridge {
	t.Helper()
	kit.UseConfigDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := Connect(ctx, Options{Port: port, Version: "1.0.0", Log: testLog(t), Grace: testGrace})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { b.Kill() })
	return b
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
