package bench

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// timeRounds runs every command once per round, for rounds rounds, and
// returns each command's wall times (start to reaped). Interleaving them
// means every command sees the same machine: a busy moment slows all of
// them, not one.
func timeRounds(b *testing.B, rounds int, cmds ...[]string) [][]time.Duration {
	b.Helper()
	out := make([][]time.Duration, len(cmds))
	for range rounds {
		for i, argv := range cmds {
			r := kit.Run(b, time.Minute, kit.Options{Env: []string{godebug}, Combined: true}, argv[0], argv[1:]...)
			if r.Code != 0 {
				b.Fatalf("%v exited %d:\n%s", argv, r.Code, r.Stdout)
			}
			out[i] = append(out[i], r.Took)
		}
	}
	return out
}

// BenchmarkColdExec: `studio-bridge exec 'print(1)'` as a whole process
// against a running host and a fake plugin, side by side (interleaved) with
// a Go binary that does nothing (test/bench/bare) and with `studio-bridge
// --version`, 31 runs of each. Targets (docs/performance.md): median under
// 25 ms; within 1.5 × the bare binary.
func BenchmarkColdExec(b *testing.B) {
	port := kit.FreePort(b)
	startServe(b, port)
	kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: fakeplugin.Studio})
	bin := kit.Binary(b)
	execArgv := []string{bin, "--port", strconv.Itoa(port), "exec", "print(1)"}
	bareArgv := []string{kit.Build(b, "test/bench/bare")}
	// The same binary doing nothing but print its version: the part of
	// exec's time that is this binary's start-up and exit, not the exec.
	versionArgv := []string{bin, "--version"}
	timeRounds(b, 3, execArgv, bareArgv, versionArgv) // warm the page cache
	b.ResetTimer()
	for range b.N {
		t := timeRounds(b, 31, execArgv, bareArgv, versionArgv)
		e50, eMax := benchutil.Percentile(t[0], 50), benchutil.Percentile(t[0], 100)
		z50, v50 := benchutil.Percentile(t[1], 50), benchutil.Percentile(t[2], 50)
		b.ReportMetric(msOf(e50), "exec-p50-ms")
		b.ReportMetric(msOf(eMax), "exec-max-ms")
		b.ReportMetric(msOf(z50), "bare-p50-ms")
		b.ReportMetric(msOf(v50), "version-p50-ms")
		b.ReportMetric(float64(e50)/float64(z50), "exec/bare")
		b.ReportMetric(float64(v50)/float64(z50), "version/bare")
	}
}

// BenchmarkFollowThroughput: a plugin floods log lines; `studio-bridge logs
// --follow --json` (a client process) prints them. Reports lines per second
// end to end and checks that every line arrived, in order.
func BenchmarkFollowThroughput(b *testing.B) {
	const lines = 200_000
	port := kit.FreePort(b)
	startServe(b, port)
	var plugin atomic.Pointer[fakeplugin.Plugin]
	flood := func() {
		p := plugin.Load()
		for i := 1; i <= lines; i++ {
			if err := p.SendLog(int64(i), "Print", "line "+strconv.Itoa(i)); err != nil {
				return
			}
		}
	}
	p, _ := kit.Plugin(b, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(action string, payload json.RawMessage) fakeplugin.Reply {
		switch action {
		case "subscribe":
			go flood()
			return fakeplugin.Reply{Payload: map[string]any{}}
		case "logs":
			return fakeplugin.Reply{Payload: map[string]any{"entries": []any{}, "total": 0, "bufferCapacity": 2000}}
		}
		return fakeplugin.Reply{Payload: map[string]any{}}
	}})
	plugin.Store(p)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(kit.Binary(b), "--port", strconv.Itoa(port), "logs", "--follow", "--json")
		cmd.Env = childEnv(b)
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = io.Discard
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		var first time.Time
		got, lost := 0, 0
		for sc.Scan() {
			var l struct {
				Body string `json:"body"`
				Seq  int64  `json:"seq"`
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			if l.Seq == 0 {
				lost++ // the "lines were lost" warning has no seq
				continue
			}
			if got == 0 {
				first = time.Now()
			}
			got++
			if l.Seq != int64(got) {
				b.Fatalf("line %d arrived as line %d", l.Seq, got)
			}
			if got == lines {
				break
			}
		}
		elapsed := time.Since(first)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if got != lines || lost > 0 {
			b.Fatalf("received %d of %d lines (%d loss warnings)", got, lines, lost)
		}
		b.ReportMetric(float64(lines)/elapsed.Seconds(), "lines/s")
		b.ReportMetric(msOf(time.Since(start)), "total-ms")
	}
}
