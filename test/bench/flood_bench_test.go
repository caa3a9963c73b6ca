package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// BenchmarkFrameFlood: the host's peak RSS when nFlooders connections send
// a huge first frame before any hello (the host stops reading at
// PreHandshakeMaxFrameBytes) while nClients joined clients each send one
// maximum-size frame (ClientMaxFrameBytes, a ping padded with an unknown
// member) at once; every client gets its pong. Bounded by the frame budget
// (ClientFrameBudgetBytes), the host holds at most two such frames at once
// instead of 32. Reported: the host's RSS before, its peak RSS (VmHWM) and
// how long all the clients took to be answered. Run it with -benchtime 1x:
//
//	go test -run '^$' -bench FrameFlood -benchtime 1x ./test/bench/
func BenchmarkFrameFlood(b *testing.B) {
	const (
		nClients  = 32
		nFlooders = 16
	)
	port := kit.FreePort(b)
	host := startServe(b, port)
	baseRSS, _ := benchutil.Memory(b, host.PID())

	head := `{"type":"ping","t":1,"pad":"`
	big := []byte(head + strings.Repeat("x", protocol.ClientMaxFrameBytes-len(head)-2) + `"}`)
	dial := func() *websocket.Conn {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", port, protocol.PathClient),
			&websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}})
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(protocol.ClientMaxFrameBytes)
		b.Cleanup(func() { _ = c.CloseNow() })
		return c
	}
	clients := make([]*websocket.Conn, nClients)
	for i := range clients {
		c := dial()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := kit.JoinClient(ctx, c, "bench", kit.Token(b).Value); err != nil {
			b.Fatal(err)
		}
		cancel()
		clients[i] = c
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, nClients+nFlooders)
	for range nFlooders {
		c := dial()
		wg.Go(func() {
			_ = c.Write(ctx, websocket.MessageText, big) // the host closes it mid-write (1009)
		})
	}
	t0 := time.Now()
	for i, c := range clients {
		wg.Go(func() {
			if err := c.Write(ctx, websocket.MessageText, big); err != nil {
				errs <- fmt.Errorf("client %d: write: %w", i, err)
				return
			}
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					errs <- fmt.Errorf("client %d: no pong: %w", i, err)
					return
				}
				if m, err := protocol.Decode(data); err == nil && m.Type() == protocol.TypePong {
					return
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(t0)
	close(errs)
	for err := range errs {
		b.Fatalf("%v\n%s", err, logTail(host))
	}
	_, peak := benchutil.Memory(b, host.PID())
	b.ReportMetric(baseRSS, "base-RSS-MiB")
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(took.Seconds(), "all-answered-s")
	b.Logf("%d clients sent a %d MiB frame each and %d connections a huge first frame: host RSS %.0f MiB before, peak %.0f MiB; all answered in %s",
		nClients, protocol.ClientMaxFrameBytes>>20, nFlooders, baseRSS, peak, took.Round(time.Millisecond))
}
