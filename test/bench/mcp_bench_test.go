package bench

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// BenchmarkMCPToolsCall: tools/call studio_state over stdio, timed by one
// go-sdk MCP client, against `studio-bridge mcp` (the bridge host here, with
// a fake plugin that answers at once) and, side by side, against the floor:
// test/bench/floor, a bare go-sdk stdio server whose studio_state answers at
// once. Each op is one call to each, interleaved, so that both see the same
// machine at the same moment; and, to split the difference, one "state"
// call of a bridge client joined to the same host (this process → the mcp
// process → the fake plugin, in this process → back: the bridge's part of
// the MCP call, without MCP). Target (docs/performance.md): bridge p50 at
// most 1.2 × the floor's.
func BenchmarkMCPToolsCall(b *testing.B) {
	port := kit.FreePort(b)
	bridgeCmd := exec.Command(kit.Binary(b), "mcp", "--port", strconv.Itoa(port))
	bridgeCmd.Env = childEnv(b)
	bridgeMCP := mcpSession(b, bridgeCmd)
	_, sid := kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: fakeplugin.Studio})
	floorCmd := exec.Command(kit.Build(b, "test/bench/floor"))
	floorCmd.Env = childEnv(b)
	floorMCP := mcpSession(b, floorCmd)
	joined := join(b, port)
	callJoined := func() time.Duration {
		start := time.Now()
		if _, err := joined.Call(context.Background(), sid, "state", nil, bridge.CallOptions{}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}

	for range 200 { // warm up both, and let the fresh host's grace pass
		callState(b, bridgeMCP)
		callState(b, floorMCP)
		callJoined()
	}
	time.Sleep(3 * time.Second)
	bridgeT, floorT, joinedT := benchutil.NewSamples(b.N), benchutil.NewSamples(b.N), benchutil.NewSamples(b.N)
	b.ResetTimer()
	for range b.N {
		bridgeT.Add(callState(b, bridgeMCP))
		floorT.Add(callState(b, floorMCP))
		joinedT.Add(callJoined())
	}
	b.StopTimer()
	bridgeT.Report(b, "")
	floorT.Report(b, "floor")
	joinedT.Report(b, "bridge-call")
	b.ReportMetric(float64(bridgeT.Percentile(50))/float64(floorT.Percentile(50)), "p50/floor")
}

// mcpSession starts cmd as an MCP server on stdio and connects the go-sdk
// client to it; Cleanup closes it.
func mcpSession(b *testing.B, cmd *exec.Cmd) *sdk.ClientSession {
	b.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callState calls studio_state and returns how long the call took.
func callState(b *testing.B, cs *sdk.ClientSession) time.Duration {
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "studio_state", Arguments: map[string]any{}})
	took := time.Since(start)
	if err != nil || res.IsError {
		b.Fatalf("studio_state: %v %+v", err, res)
	}
	return took
}
