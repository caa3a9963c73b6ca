package bench

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// BenchmarkFailoverFreshProcess: ten times, a `serve` host, a standby
// `serve` joined to it and 3 fake plugins on the real plugin's reconnect
// schedule (250 ms, 500 ms, 1 s, 2 s); kill -9 the host and at once start a
// fresh `studio-bridge sessions --json`, and time from the kill until that
// process has exited listing all 3 sessions (target: 1 s; the resolution
// grace it used to wait out is 3 s). The fresh process either joins the
// standby that took over or wins the port itself; the log says which.
// "at-once" starts it right after the kill (it usually wins the port
// before the standby's jitter ends); "after-takeover" once /health answers
// from the standby. The scenario runs once per invocation whatever b.N is:
// use -benchtime 1x.
func BenchmarkFailoverFreshProcess(b *testing.B) {
	b.Run("at-once", func(b *testing.B) { freshAfterKill(b, false) })
	b.Run("after-takeover", func(b *testing.B) { freshAfterKill(b, true) })
}

func freshAfterKill(b *testing.B, afterTakeover bool) {
	const (
		rounds   = 10
		nPlugins = 3
	)
	listed := benchutil.NewSamples(rounds)
	for i := range rounds {
		d, wonPort := freshAfterKillRound(b, nPlugins, afterTakeover)
		listed.Add(d)
		role := "joined the standby"
		if wonPort {
			role = "won the port"
		}
		b.Logf("round %d: fresh `sessions` listed all %d sessions %s after the kill (%s)", i+1, nPlugins, d.Round(time.Millisecond), role)
	}
	b.ReportMetric(msOf(listed.Percentile(50)), "fresh-median-ms")
	b.ReportMetric(msOf(listed.Max()), "fresh-max-ms")
}

// freshAfterKillRound runs one kill -9 and a `sessions --json` process
// started right after it; it returns how long after the kill that process
// exited, and whether it became the host itself.
func freshAfterKillRound(b *testing.B, nPlugins int, afterTakeover bool) (time.Duration, bool) {
	b.Helper()
	var c standbyCluster
	defer c.stop()
	c.start(b, nPlugins)
	port, p, host, standby := c.port, strconv.Itoa(c.port), c.host, c.standby

	cmd := exec.Command(kit.Binary(b), "sessions", "--json", "--port", p, "--log-level", "info")
	cmd.Env = childEnv(b)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := host.Kill(b)
	if afterTakeover {
		kit.WaitHealth(b, port, 15*time.Second, "the standby to take over", func(h bridge.Health) bool {
			return h.Status == "ok" && h.PID == standby.PID()
		})
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		b.Fatalf("sessions still running 15 s after the kill:\n%s", stderr.String())
	}
	took := time.Since(t0)
	if err != nil {
		b.Fatalf("sessions after the kill: %v\n%s", err, stderr.String())
	}
	var data struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &data); err != nil || len(data.Sessions) != nPlugins {
		b.Fatalf("sessions after the kill listed %d sessions (%v), want %d:\n%s\nstderr:\n%s", len(data.Sessions), err, nPlugins, stdout.String(), stderr.String())
	}
	return took, strings.Contains(stderr.String(), "serving as the bridge host")
}
