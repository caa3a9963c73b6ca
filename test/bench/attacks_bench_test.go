package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// BenchmarkAttacks runs issue 22's resource attacks 3 to 6, and 9, at once
// and at full scale against a `studio-bridge serve` host, and reports the
// host's peak RSS (target: under 512 MiB) and what a real plugin and a real
// caller see meanwhile:
//
//   - 3: an attacker's session floods 900 KiB log events while a watching
//     client reads nothing;
//   - 4: the attacker's session answers 16 calls with 256 chunks of 256 KiB
//     and never the response;
//   - 5 and 6: 3,000 /plugin sockets say hello and start a large frame (512
//     KiB of it sent) that never ends;
//   - 9: 150 connections a second each start a long first frame and stall.
//
// Meanwhile a real v2 window registers (its time to attach is reported)
// and a real 200 KiB exec reply is fetched through a joined client (its
// latency is reported; the target for both is under 2 s). Run it once:
//
//	go test -run '^$' -bench Attacks -benchtime 1x ./test/bench/
func BenchmarkAttacks(b *testing.B) {
	const (
		floodEvent   = 900 << 10
		chunkCalls   = 16
		chunksPer    = 256
		stallSockets = 3000
		helloRate    = 150 // stalled first frames a second
		attackFor    = 20 * time.Second
	)
	port := kit.FreePort(b)
	host := startServe(b, port)
	baseRSS, _ := benchutil.Memory(b, host.PID())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client := join(b, port)
	token := kit.Token(b).Value

	dial := func(path string) (*websocket.Conn, error) {
		dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
		defer dcancel()
		c, _, err := websocket.Dial(dctx, fmt.Sprintf("ws://127.0.0.1:%d%s", port, path),
			&websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}})
		if err == nil {
			c.SetReadLimit(protocol.ClientMaxFrameBytes)
		}
		return c, err
	}
	write := func(c *websocket.Conn, m protocol.Message) error {
		data, err := protocol.Encode(m)
		if err != nil {
			return err
		}
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		defer wcancel()
		return c.Write(wctx, websocket.MessageText, data)
	}
	readType := func(c *websocket.Conn, want string) (protocol.Message, error) {
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return nil, err
			}
			if m, err := protocol.Decode(data); err == nil && m.Type() == want {
				return m, nil
			}
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup

	// The attacker's session (attacks 3 and 4).
	attacker, err := dial(protocol.PathPlugin)
	if err != nil {
		b.Fatal(err)
	}
	defer attacker.CloseNow()
	// The attacker holds the pairing key: the worst case is a paired plugin
	// gone rogue, since an unpaired one is refused at the handshake.
	hello := protocol.Hello{ProtocolVersions: []int{2}, PluginVersion: "bench", InstanceID: "attacker", Nonce: protocol.NewNonce()}
	if err := write(attacker, hello); err != nil {
		b.Fatal(err)
	}
	wm, err := readType(attacker, protocol.TypeWelcome)
	if err != nil {
		b.Fatal(err)
	}
	proof := protocol.PluginProof(kit.Token(b).PairingKey(), wm.(protocol.Welcome).Nonce, hello.Nonce, hello.InstanceID)
	if err := write(attacker, protocol.Pair{Proof: proof}); err != nil {
		b.Fatal(err)
	}
	if err := write(attacker, protocol.Attach{Ref: "e", InstanceID: "attacker", Context: protocol.ContextEdit, State: protocol.StateEdit}); err != nil {
		b.Fatal(err)
	}
	m, err := readType(attacker, protocol.TypeAttached)
	if err != nil {
		b.Fatal(err)
	}
	evil := m.(protocol.Attached).SessionID
	var amu sync.Mutex // one writer at a time on the attacker's socket
	awrite := func(m protocol.Message) error {
		amu.Lock()
		defer amu.Unlock()
		return write(attacker, m)
	}

	// Attack 3: a client watches the attacker's session and reads nothing.
	watcher, err := dial(protocol.PathClient)
	if err != nil {
		b.Fatal(err)
	}
	defer watcher.CloseNow()
	jctx, jcancel := context.WithTimeout(context.Background(), 10*time.Second)
	_, err = kit.JoinClient(jctx, watcher, "bench", token)
	jcancel()
	if err != nil {
		b.Fatal(err)
	}
	if err := write(watcher, protocol.Watch{SessionID: evil}); err != nil {
		b.Fatal(err)
	}
	logPayload, _ := json.Marshal(map[string]string{"level": "Print", "body": strings.Repeat("l", floodEvent)})
	wg.Go(func() {
		for seq := int64(1); !stop.Load(); seq++ {
			if awrite(protocol.Event{Event: "log", SessionID: evil, Seq: seq, Payload: logPayload}) != nil {
				return
			}
		}
	})

	// Attack 4: the attacker answers every request with chunks only.
	chunk := strings.Repeat("c", protocol.MaxChunkBytes)
	wg.Go(func() {
		for !stop.Load() {
			_, data, err := attacker.Read(ctx)
			if err != nil {
				return
			}
			req, err := protocol.Decode(data)
			if err != nil || req.Type() != protocol.TypeRequest {
				continue
			}
			id := req.(protocol.Request).ID
			go func() {
				for i := 0; i < chunksPer && !stop.Load(); i++ {
					if awrite(protocol.Chunk{SessionID: evil, ID: id, Seq: i, Data: chunk}) != nil {
						return
					}
				}
			}()
		}
	})
	for range chunkCalls {
		wg.Go(func() {
			_, _ = client.Call(ctx, evil, "exec", json.RawMessage(`{}`), bridge.CallOptions{Timeout: attackFor})
		})
	}

	// Attacks 5 and 6: sockets that say hello and stall a 1 MiB frame.
	var refused, stalled atomic.Int64
	attackStart := time.Now()
	var burstDone atomic.Int64 // nanoseconds after attackStart when every stalling socket had its answer
	answered := func() {
		if refused.Load()+stalled.Load() == stallSockets {
			burstDone.Store(int64(time.Since(attackStart)))
		}
	}
	stallFrame := []byte(`{"type":"event","pad":"` + strings.Repeat("s", 512<<10))
	for i := range stallSockets {
		wg.Go(func() {
			c, err := dial(protocol.PathPlugin)
			if err != nil {
				refused.Add(1)
				answered()
				return
			}
			defer c.CloseNow()
			id := "stall-" + strconv.Itoa(i)
			// A nonce gets the hello its welcome: the stalled frame then
			// stands where the host waits for the pair proof.
			if write(c, protocol.Hello{ProtocolVersions: []int{2}, PluginVersion: "bench", InstanceID: id, Nonce: protocol.NewNonce()}) != nil {
				return
			}
			if _, err := readType(c, protocol.TypeWelcome); err != nil {
				refused.Add(1)
				answered()
				return
			}
			stalled.Add(1)
			answered()
			if w, err := c.Writer(ctx, websocket.MessageText); err == nil {
				_, _ = w.Write(stallFrame)
			}
			for !stop.Load() { // hold it open until the host closes it
				if _, _, err := c.Read(ctx); err != nil {
					return
				}
			}
		})
	}

	// Attack 9: a paced stream of stalled first frames.
	wg.Go(func() {
		tick := time.NewTicker(time.Second / helloRate)
		defer tick.Stop()
		for !stop.Load() {
			<-tick.C
			wg.Go(func() {
				c, err := dial(protocol.PathPlugin)
				if err != nil {
					return
				}
				defer c.CloseNow()
				if w, err := c.Writer(ctx, websocket.MessageText); err == nil {
					_, _ = w.Write([]byte(`{"type":"hello","pad":"` + strings.Repeat("p", 32<<10)))
				}
				_, _, _ = c.Read(ctx) // until the host closes it
			})
		}
	})

	time.Sleep(3 * time.Second) // let every attack reach full scale

	// A real window registers and answers a 200 KiB exec reply.
	reply := strings.Repeat("r", 200<<10)
	t0 := time.Now()
	win := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: "real", RetryDelays: kit.FastRetry, Sessions: []fakeplugin.SessionConfig{{
		Context: protocol.ContextEdit,
		Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Payload: reply} },
	}}})
	defer win.Close()
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	ids, err := win.WaitAttached(wctx, 1)
	wcancel()
	if err != nil {
		b.Logf("the real window is not attached after 2 s: %v", err)
		if ids, err = win.WaitAttached(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
	registered := time.Since(t0)
	b.Logf("the 3,000 stalling sockets all had their answer %s after they started (0: not yet)", time.Duration(burstDone.Load()).Round(time.Millisecond))
	lat := benchutil.NewSamples(20)
	for range 20 {
		t1 := time.Now()
		out, err := client.Call(ctx, ids[protocol.ContextEdit], "exec", json.RawMessage(`{}`), bridge.CallOptions{Timeout: time.Minute})
		if err != nil || len(out) != len(reply)+2 {
			b.Fatalf("the real exec under attack: err %v, %d bytes\n%s", err, len(out), logTail(host))
		}
		lat.Add(time.Since(t1))
		time.Sleep(attackFor / 40)
	}
	stop.Store(true)
	_, peak := benchutil.Memory(b, host.PID())
	_ = attacker.CloseNow()
	_ = watcher.CloseNow()
	cancel()
	wg.Wait()

	b.ReportMetric(baseRSS, "base-RSS-MiB")
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(msOf(registered), "real-register-ms")
	b.ReportMetric(msOf(lat.Max()), "real-exec-max-ms")
	b.Logf("attacks 3-6 and 9 at once: host RSS %.0f MiB before, peak %.0f MiB; %d stalling sockets were welcomed and started their frame, %d were refused; a real window registered in %s; 20 real 200 KiB exec replies: p50 %s, max %s",
		baseRSS, peak, stalled.Load(), refused.Load(), registered.Round(time.Millisecond), lat.Percentile(50).Round(time.Millisecond), lat.Max().Round(time.Millisecond))
}
