package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Targets (docs/performance.md):
//   - action round trip client process → host process → plugin → back:
//     p50 < 0.5 ms, p99 < 2 ms on loopback;
//   - 1,000 plugin sessions and 100 clients on one host: host RSS < 150 MB,
//     `sessions --json` < 10 ms;
//   - failover after kill -9: median of 10 (design target: plugins served
//     again within 2 s).
//
// Run with:
//
//	go test -run '^$' -bench RoundTripProcess -benchtime 5000x ./test/bench/
//	go test -run '^$' -bench 'Scale|Failover' -benchtime 1x ./test/bench/

// BenchmarkRoundTripProcess: a `studio-bridge serve` host process; this
// process joins it as a client (bridge.Connect) and also runs the fake
// plugin. Each op is one "state" call: bench process → host process → fake
// plugin (bench process) → host process → bench process.
func BenchmarkRoundTripProcess(b *testing.B) {
	port := kit.FreePort(b)
	startServe(b, port)
	_, sid := kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: benchutil.StateHandler})
	ctx := context.Background()
	client := join(b, port)

	benchutil.Latency(b, 200, func() error {
		out, err := client.Call(ctx, sid, "state", nil, bridge.CallOptions{})
		if err == nil && len(out) != len(benchutil.StateReply) {
			err = fmt.Errorf("unexpected reply %s", out)
		}
		return err
	})
}

// BenchmarkScale1000x100: one `studio-bridge serve` host process with 100
// joined clients and 1,000 plugin sessions (clients join first, so the host
// also fans 1,000 session-connected events out to each of them). Reported:
// the host's RSS once everything is connected, its peak RSS, the wall time
// of `studio-bridge sessions --json` as a whole process (median of 21), and
// the latency of Sessions() in a joined client. The scenario runs once per
// invocation whatever b.N is; run it with -benchtime 1x.
func BenchmarkScale1000x100(b *testing.B) {
	const (
		nPlugins = 1000
		nClients = 100
		cliRuns  = 21
	)
	ensureFDs(b, 2*(nPlugins+nClients)+512)
	port := kit.FreePort(b)
	host := startServe(b, port)
	baseRSS, _ := memMB(b, host.PID())

	t0 := time.Now()
	clients := make([]*bridge.Bridge, nClients)
	for i := range clients {
		clients[i] = join(b, port)
	}
	joinTime := time.Since(t0)
	t0 = time.Now()
	kit.Fleet(b, port, nPlugins, benchutil.StateHandler, []time.Duration{250 * time.Millisecond}, true)
	registerTime := time.Since(t0)
	hh := kit.WaitHealth(b, port, 30*time.Second, "1,000 sessions and 100 clients", func(h bridge.Health) bool {
		return h.Sessions == nPlugins && h.Clients == nClients
	})
	// Past the resolve grace, Sessions answers from the mirror at once.
	if wait := bridge.ResolveGrace + 200*time.Millisecond - time.Duration(hh.UptimeMs)*time.Millisecond; wait > 0 {
		time.Sleep(wait)
	}
	deadline := time.Now().Add(30 * time.Second)
	for i, c := range clients {
		for {
			s, err := c.Sessions(context.Background())
			if err == nil && len(s) == nPlugins {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("client %d sees %d sessions (err %v); want %d", i, len(s), err, nPlugins)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	time.Sleep(time.Second) // let the host settle (GC, buffers) before sampling RSS
	rss, _ := memMB(b, host.PID())
	st, _ := procStatus(host.PID())

	bin := kit.Binary(b)
	runCLI := func(args ...string) (time.Duration, []byte) {
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Env = childEnv(b)
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		if err != nil {
			b.Fatalf("studio-bridge %v: %v\n%s", args, err, errb.String())
		}
		return d, out.Bytes()
	}
	startup := benchutil.NewSamples(cliRuns)
	cli := benchutil.NewSamples(cliRuns)
	for i := range cliRuns {
		d, _ := runCLI("--version")
		startup.Add(d)
		d, out := runCLI("sessions", "--json", "--port", strconv.Itoa(port))
		cli.Add(d)
		if i == 0 {
			var data struct {
				Sessions []json.RawMessage `json:"sessions"`
			}
			if err := json.Unmarshal(out, &data); err != nil || len(data.Sessions) != nPlugins {
				b.Fatalf("sessions --json: %d sessions, %v", len(data.Sessions), err)
			}
			b.ReportMetric(float64(len(out))/1024, "sessions-json-KiB")
		}
	}

	// The same work without process start: join, list, encode, leave.
	inproc := benchutil.NewSamples(cliRuns)
	kit.UseConfigDir(b) // the host's token, as the CLI children above read it
	for range cliRuns {
		t0 := time.Now()
		c, err := bridge.Connect(context.Background(), bridge.Options{Port: port, Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		s, err := c.Sessions(context.Background())
		if err != nil || len(s) != nPlugins {
			b.Fatalf("sessions: %d, %v", len(s), err)
		}
		enc := json.NewEncoder(new(bytes.Buffer))
		enc.SetIndent("", "  ")
		_ = enc.Encode(s)
		_ = c.Close()
		inproc.Add(time.Since(t0))
	}

	// Sessions() in an already joined client.
	list := benchutil.NewSamples(1000)
	for range 1000 {
		t0 := time.Now()
		s, err := clients[0].Sessions(context.Background())
		list.Add(time.Since(t0))
		if err != nil || len(s) != nPlugins {
			b.Fatalf("sessions: %d, %v", len(s), err)
		}
	}
	_, peak := memMB(b, host.PID())

	b.ReportMetric(rss, "host-RSS-MB")
	b.ReportMetric(peak, "host-peakRSS-MB")
	b.ReportMetric(baseRSS, "host-idleRSS-MB")
	b.ReportMetric(msOf(cli.Percentile(50)), "sessions-json-ms")
	b.ReportMetric(msOf(cli.Max()), "sessions-json-max-ms")
	b.ReportMetric(msOf(startup.Percentile(50)), "version-cmd-ms")
	b.ReportMetric(msOf(inproc.Percentile(50)), "join-list-leave-ms")
	b.ReportMetric(float64(list.Percentile(50))/1e3, "client-Sessions-p50-µs")
	b.ReportMetric(float64(list.Percentile(99))/1e3, "client-Sessions-p99-µs")
	b.ReportMetric(float64(strings.Count(host.Stdout.String(), "outgoing queue full")), "slow-peer-drops")
	b.Logf("host: idle RSS %.1f MB, RSS %.1f MB, peak %.1f MB, threads %s; 100 joins %s, 1,000 registrations %s",
		baseRSS, rss, peak, st["Threads"], joinTime.Round(time.Millisecond), registerTime.Round(time.Millisecond))
	b.Logf("sessions --json ms: %v", cli.Durations())
	b.Logf("studio-bridge --version ms: %v", startup.Durations())
	b.Logf("in-process join+list+encode+leave: %v", inproc.Durations())
	if os.Getenv("BENCH_SERVE_GODEBUG") != "" {
		b.Logf("host log tail:\n%s", logTail(host))
	}
}

// BenchmarkFailover: ten times, a `serve` host process, a standby `serve`
// process joined to it and 3 fake plugins (retrying on the real plugin's
// default schedule, 250 ms, 500 ms, 1 s, 2 s); kill -9 the host and time
// until /health answers from the standby ("takeover") and until it has all
// 3 sessions again ("failover"). The scenario runs once per invocation
// whatever b.N is; run it with -benchtime 1x.
func BenchmarkFailover(b *testing.B) {
	const (
		rounds   = 10
		nPlugins = 3
	)
	takeover := benchutil.NewSamples(rounds)
	failover := benchutil.NewSamples(rounds)
	for i := range rounds {
		tk, fo := failoverRound(b, nPlugins)
		takeover.Add(tk)
		failover.Add(fo)
		b.Logf("round %d: takeover %s, plugins served again %s", i+1, tk.Round(time.Millisecond), fo.Round(time.Millisecond))
	}
	b.ReportMetric(msOf(failover.Percentile(50)), "failover-median-ms")
	b.ReportMetric(msOf(failover.Max()), "failover-max-ms")
	b.ReportMetric(msOf(takeover.Percentile(50)), "takeover-median-ms")
	b.ReportMetric(msOf(takeover.Max()), "takeover-max-ms")
}

// failoverRound runs one kill -9 and returns how long until the standby
// answered /health as host, and until it had every plugin session.
func failoverRound(b *testing.B, nPlugins int) (takeover, failover time.Duration) {
	b.Helper()
	// Each round's processes and plugins go away before the next starts.
	var c standbyCluster
	defer c.stop()
	c.start(b, nPlugins)
	port, host, standby := c.port, c.host, c.standby

	t0 := time.Now()
	host.Kill(b)
	deadline := t0.Add(15 * time.Second)
	for {
		h, err := kit.Health[bridge.Health](port)
		now := time.Now()
		if err == nil && h.Status == "ok" && h.PID == standby.PID() {
			if takeover == 0 {
				takeover = now.Sub(t0)
			}
			if h.Sessions == nPlugins {
				failover = now.Sub(t0)
				return takeover, failover
			}
		}
		if now.After(deadline) {
			b.Fatalf("no failover within 15 s: last /health %+v, err %v\nstandby log:\n%s", h, err, logTail(standby))
		}
		time.Sleep(2 * time.Millisecond)
	}
}
