package bench

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// BenchmarkMCPState: tools/call studio_state over stdio, timed by the MCP
// client, against `studio-bridge mcp` (the bridge host here) and a fake
// plugin that answers at once. Target: p50 under 1 ms.
func BenchmarkMCPState(b *testing.B) {
	port := freePort(b)
	cmd := exec.Command(kit.Binary(b), "mcp", "--port", strconv.Itoa(port))
	cmd.Env = childEnv(b)
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "A", Handler: fakeplugin.Studio,
		RetryDelays: []time.Duration{50 * time.Millisecond}})
	b.Cleanup(p.Close)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := p.WaitWelcome(wctx); err != nil {
		b.Fatal(err)
	}
	call := func() time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "studio_state", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatalf("studio_state: %v %+v", err, res)
		}
		return time.Since(start)
	}
	for i := 0; i < 200; i++ { // warm up, and let the fresh host's grace pass
		call()
	}
	time.Sleep(3 * time.Second)
	samples := benchutil.NewSamples(b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		samples.Add(call())
	}
	b.StopTimer()
	samples.Report(b, "")
}
