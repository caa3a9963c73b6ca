package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Performance targets (docs/performance.md): an action round trip from a
// client through the host to a plugin and back takes p50 < 0.5 ms and
// p99 < 2 ms on loopback; listing 1,000 sessions as JSON takes < 10 ms.
//
// Run with:
//
//	go test -run '^$' -bench . -benchtime 2000x ./bridge/

// benchCalls times b.N sequential calls of "state" through c and reports
// their p50, p99 and max.
func benchCalls(b *testing.B, c Conn, sid string) {
	b.Helper()
	benchutil.Latency(b, 200, func() error {
		out, err := c.Call(context.Background(), sid, "state", nil, CallOptions{})
		if err == nil && len(out) != len(benchutil.StateReply) {
			err = fmt.Errorf("unexpected reply %s", out)
		}
		return err
	})
}

// BenchmarkCallHost: the caller is the host process itself (host → plugin →
// host), over a real loopback WebSocket to the fake plugin.
func BenchmarkCallHost(b *testing.B) {
	port := kit.FreePort(b)
	host := connect(b, port)
	_, sid := kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: benchutil.StateHandler})
	benchCalls(b, host, sid)
}

// BenchmarkCallClient: the caller is a joined client (client → host → plugin
// → host → client). All three run in this process but talk over real
// loopback sockets, so the figure is the protocol's cost without process
// scheduling across address spaces (see test/bench for that).
func BenchmarkCallClient(b *testing.B) {
	port, _, client := hostAndClient(b)
	_, sid := kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: benchutil.StateHandler})
	benchCalls(b, client, sid)
}

// BenchmarkCallClientParallel: several goroutines of one joined client call
// concurrently (the shape of an MCP server serving parallel tool calls). The
// latency percentiles are per call under that load.
func BenchmarkCallClientParallel(b *testing.B) {
	port, _, client := hostAndClient(b)
	_, sid := kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: benchutil.StateHandler})
	ctx := context.Background()
	var mu sync.Mutex
	all := benchutil.NewSamples(b.N)
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		local := benchutil.NewSamples(1024)
		for pb.Next() {
			t0 := time.Now()
			_, err := client.Call(ctx, sid, "state", nil, CallOptions{})
			local.Add(time.Since(t0))
			if err != nil {
				b.Error(err)
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, d := range local.Durations() {
			all.Add(d)
		}
	})
	b.StopTimer()
	all.Report(b, "")
}

// fleetHost starts a host with n fake plugins and a client joined to it,
// and returns once the client lists all n sessions and the host is older
// than its resolution grace (so Sessions answers at once).
func fleetHost(b *testing.B, n int) (port int, client *Bridge) {
	b.Helper()
	started := time.Now()
	port, _, client = hostAndClient(b)
	kit.Fleet(b, port, n, benchutil.StateHandler, kit.FastRetry, true)
	waitSessions(b, client, n)
	time.Sleep(time.Until(started.Add(testGrace + 100*time.Millisecond)))
	return port, client
}

// BenchmarkSessionsJSON: with 1,000 registered sessions, a joined client
// lists them (Sessions) and JSON-encodes the list as `sessions --json` does.
// The host is older than ResolveGrace, so Sessions answers from the mirror
// without waiting for late plugins.
func BenchmarkSessionsJSON(b *testing.B) {
	const n = 1000
	_, client := fleetHost(b, n)

	ctx := context.Background()
	var buf bytes.Buffer
	list := benchutil.NewSamples(b.N)
	total := benchutil.NewSamples(b.N)
	run := func() {
		t0 := time.Now()
		s, err := client.Sessions(ctx)
		t1 := time.Now()
		if err != nil || len(s) != n {
			b.Fatalf("sessions: %d, %v", len(s), err)
		}
		buf.Reset()
		enc := json.NewEncoder(&buf) // compact, as `sessions --json` prints
		if err := enc.Encode(struct {
			Sessions []protocol.SessionInfo `json:"sessions"`
		}{s}); err != nil {
			b.Fatal(err)
		}
		list.Add(t1.Sub(t0))
		total.Add(time.Since(t0))
	}
	for range 20 { // warm up
		run()
	}
	list, total = benchutil.NewSamples(b.N), benchutil.NewSamples(b.N)
	b.ReportAllocs()
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		run()
	}
	b.StopTimer()
	total.Report(b, "")
	list.Report(b, "Sessions")
}

// BenchmarkJoinListLeave is the in-process part of a one-shot `sessions
// --json` against a host with 1,000 sessions: join as a client, list, encode,
// leave.
func BenchmarkJoinListLeave(b *testing.B) {
	const n = 1000
	port, _ := fleetHost(b, n)
	ctx := context.Background()
	tok := kit.Token(b)
	samples := benchutil.NewSamples(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		c, err := Connect(ctx, Options{Token: tok, Port: port})
		if err != nil {
			b.Fatal(err)
		}
		s, err := c.Sessions(ctx)
		if err != nil || len(s) != n {
			b.Fatalf("sessions: %d, %v", len(s), err)
		}
		if err := json.NewEncoder(io.Discard).Encode(s); err != nil {
			b.Fatal(err)
		}
		_ = c.Close()
		samples.Add(time.Since(t0))
	}
	b.StopTimer()
	samples.Report(b, "")
}
