package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// BenchmarkCallHostSharedSocket is BenchmarkCallHost to the server session
// of a window whose socket carries two (edit and server): host → session
// (ack, then response) → back, with the host alone (no Bridge around it).
func BenchmarkCallHostSharedSocket(b *testing.B) {
	h := newV2Host(b, HostConfig{})
	_, ids := startWindow(b, fakeplugin.Config{Port: h.port, InstanceID: "bench", Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: benchutil.StateHandler},
		{Context: protocol.ContextServer, Handler: benchutil.StateHandler},
	}})
	benchHostCalls(b, h.Host, ids[protocol.ContextServer])
}

// BenchmarkExec4MB times an exec of a 4 MiB script: 16 chunks host →
// plugin, reassembled and parsed by the (Go) fake plugin.
func BenchmarkExec4MB(b *testing.B) {
	h := newV2Host(b, HostConfig{})
	_, ids := startWindow(b, fakeplugin.Config{Port: h.port, InstanceID: "bench", Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(_ string, payload json.RawMessage) fakeplugin.Reply {
			return fakeplugin.Reply{Payload: len(payload)}
		}},
	}})
	payload, _ := json.Marshal(map[string]string{"script": strings.Repeat("print(\"x\")\n", (4<<20)/11)})
	sid := ids[protocol.ContextEdit]
	samples := benchutil.NewSamples(b.N)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := h.call(context.Background(), sid, "exec", payload, time.Minute, nil); err != nil {
			b.Fatal(err)
		}
		samples.Add(time.Since(t0))
	}
	b.StopTimer()
	samples.Report(b, "")
}

// benchHostCalls times b.N sequential "state" calls made by the host itself.
func benchHostCalls(b *testing.B, h *Host, sid string) {
	b.Helper()
	ctx := context.Background()
	for range 200 {
		if _, err := h.call(ctx, sid, "state", nil, time.Minute, nil); err != nil {
			b.Fatal(err)
		}
	}
	samples := benchutil.NewSamples(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		out, err := h.call(ctx, sid, "state", nil, time.Minute, nil)
		samples.Add(time.Since(t0))
		if err != nil || len(out) != len(benchutil.StateReply) {
			b.Fatalf("reply %s, %v", out, err)
		}
	}
	b.StopTimer()
	samples.Report(b, "")
}
