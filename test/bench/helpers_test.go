package bench

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

func TestMain(m *testing.M) { kit.Main(m) }

// godebug is the GODEBUG of every studio-bridge child:
// BENCH_SERVE_GODEBUG when set (e.g. gctrace=1 to see the host's heap and
// stacks in its log, printed by the Scale benchmark); otherwise they run
// without this process's GODEBUG.
var godebug = "GODEBUG=" + os.Getenv("BENCH_SERVE_GODEBUG")

// childEnv is the whole environment of a studio-bridge child started with
// os/exec: kit.ChildEnv with godebug.
func childEnv(b testing.TB) []string { return kit.ChildEnv(b, godebug) }

// startServe starts `studio-bridge serve` on port, its stdout and stderr in
// one log, and waits until it is the host; it is stopped at cleanup, or
// earlier by Stop.
func startServe(b *testing.B, port int) *kit.Proc {
	b.Helper()
	return kit.Serve(b, "serve", port, kit.Options{Env: []string{godebug}, Combined: true})
}

// logTail returns the end of the process's output, for failure messages.
func logTail(p *kit.Proc) string {
	out := p.Stdout.String()
	return out[max(0, len(out)-4000):]
}

// sessionCount is how many sessions the output of `sessions --json` lists.
func sessionCount(out string) (int, error) {
	var data struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	err := json.Unmarshal([]byte(out), &data)
	return len(data.Sessions), err
}

// join connects this process to the host on port as a client.
func join(b *testing.B, port int) *bridge.Bridge {
	b.Helper()
	c := bridgekit.Connect(b, bridge.Options{Port: port, Version: "bench"})
	if c.Role() != bridge.RoleClient {
		b.Fatalf("the bench process became %s; it must join the serve process as a client", c.Role())
	}
	return c
}

// msOf converts a duration to float milliseconds for metrics.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
