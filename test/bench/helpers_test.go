package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/testutil"
)

// The binary is built once, on first use, so that `go test ./test/bench/`
// without -bench builds nothing.
var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binary returns the path of a freshly built studio-bridge.
func binary(b *testing.B) string {
	b.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "studio-bridge-bench-")
		if buildErr != nil {
			return
		}
		binPath, buildErr = testutil.BuildBinary(buildDir)
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binPath
}

// freePort is a loopback port that was free a moment ago.
var freePort = testutil.FreePort

// childEnv is this process's environment without the variables that would
// point a studio-bridge child elsewhere. BENCH_SERVE_GODEBUG, when set,
// becomes the GODEBUG of the children (e.g. gctrace=1 to see the host's
// heap and stacks in its log, printed by the Scale benchmark).
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "STUDIO_BRIDGE_") || strings.HasPrefix(kv, "GODEBUG=") {
			continue
		}
		env = append(env, kv)
	}
	if d := os.Getenv("BENCH_SERVE_GODEBUG"); d != "" {
		env = append(env, "GODEBUG="+d)
	}
	return env
}

// proc is a studio-bridge child process.
type proc struct {
	cmd  *exec.Cmd
	log  string // path of its combined stdout and stderr
	done chan struct{}
	err  error
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// startServe starts `studio-bridge serve` on port; Cleanup stops it.
func startServe(b *testing.B, port int) *proc {
	b.Helper()
	p := startServeNoCleanup(b, port)
	b.Cleanup(p.stop)
	return p
}

// startServeNoCleanup starts `studio-bridge serve` on port; the caller must
// stop it.
func startServeNoCleanup(b *testing.B, port int) *proc {
	b.Helper()
	bin := binary(b)
	logf, err := os.CreateTemp(b.TempDir(), "serve-*.log")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--port", strconv.Itoa(port))
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &proc{cmd: cmd, log: logf.Name(), done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p
}

// kill sends SIGKILL and reaps the process.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop asks the process to exit (SIGTERM) and kills it if it does not.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// logTail returns the end of the process's output, for failure messages.
func (p *proc) logTail() string {
	data, _ := os.ReadFile(p.log)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// countLog counts the lines of the process's output that contain s.
func (p *proc) countLog(s string) int {
	data, _ := os.ReadFile(p.log)
	return bytes.Count(data, []byte(s))
}

var healthClient = &http.Client{
	Timeout:   500 * time.Millisecond,
	Transport: &http.Transport{DisableKeepAlives: true},
}

// health asks the host on port for /health.
func health(port int) (bridge.Health, error) {
	resp, err := healthClient.Get("http://127.0.0.1:" + strconv.Itoa(port) + protocol.PathHealth)
	if err != nil {
		return bridge.Health{}, err
	}
	defer resp.Body.Close()
	var h bridge.Health
	err = json.NewDecoder(resp.Body).Decode(&h)
	return h, err
}

// waitHealth polls /health until ok reports true.
func waitHealth(b *testing.B, port int, timeout time.Duration, what string, ok func(bridge.Health) bool) bridge.Health {
	b.Helper()
	deadline := time.Now().Add(timeout)
	var last bridge.Health
	var lastErr error
	for time.Now().Before(deadline) {
		last, lastErr = health(port)
		if lastErr == nil && ok(last) {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("waiting for %s: last /health %+v, err %v", what, last, lastErr)
	return last
}

// servingHost waits until p is the host on port.
func servingHost(b *testing.B, p *proc, port int) {
	b.Helper()
	waitHealth(b, port, 15*time.Second, "the serve process to host", func(h bridge.Health) bool {
		return h.Status == "ok" && h.PID == p.pid()
	})
}

// procStatus reads fields of /proc/<pid>/status.
func procStatus(pid int) (map[string]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	return parseStatus(data), nil
}

func parseStatus(data []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// kB parses a /proc/<pid>/status size such as "123456 kB" into bytes.
func kB(v string) (int64, error) {
	num, unit, _ := strings.Cut(v, " ")
	if unit != "kB" {
		return 0, fmt.Errorf("unexpected unit in %q", v)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n * 1024, err
}

// memMB returns a process's VmRSS and VmHWM (peak RSS) in MiB.
func memMB(b *testing.B, pid int) (rss, peak float64) {
	b.Helper()
	st, err := procStatus(pid)
	if err != nil {
		b.Fatal(err)
	}
	r, err1 := kB(st["VmRSS"])
	h, err2 := kB(st["VmHWM"])
	if err1 != nil || err2 != nil {
		b.Fatalf("VmRSS %q / VmHWM %q: %v %v", st["VmRSS"], st["VmHWM"], err1, err2)
	}
	return float64(r) / (1 << 20), float64(h) / (1 << 20)
}

// ensureFDs raises the open-file limit to at least need, or skips.
func ensureFDs(b *testing.B, need uint64) {
	b.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	if lim.Cur >= need {
		return
	}
	if lim.Max < need {
		b.Skipf("open-file hard limit %d is below the %d this benchmark needs; raise it (ulimit -Hn) and rerun", lim.Max, need)
	}
	lim.Cur = need
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Skipf("cannot raise the open-file limit to %d: %v", need, err)
	}
}

// benchStateReply is a plugin's answer to "state": a small, typical payload.
var benchStateReply = json.RawMessage(`{"state":"Edit","placeName":"Benchmark Place","placeId":1818,"gameId":2020}`)

func benchHandler(string, json.RawMessage) fakeplugin.Reply {
	return fakeplugin.Reply{Payload: benchStateReply}
}

// startPlugins starts n fake plugins, each its own Studio instance; Cleanup
// closes them. With wait it waits for every welcome.
func startPlugins(b *testing.B, port, n int, retry []time.Duration, wait bool) []*fakeplugin.Plugin {
	b.Helper()
	plugins := make([]*fakeplugin.Plugin, n)
	for i := range plugins {
		plugins[i] = fakeplugin.Start(fakeplugin.Config{
			Port: port, InstanceID: fmt.Sprintf("studio-%04d", i), PlaceName: fmt.Sprintf("Place %d", i),
			PlaceID: int64(1000 + i), GameID: int64(2000 + i), Capabilities: []string{"exec", "query", "logs", "screenshot"},
			Handler: benchHandler, RetryDelays: retry,
		})
	}
	b.Cleanup(func() {
		var wg sync.WaitGroup
		for _, p := range plugins {
			wg.Go(p.Close)
		}
		wg.Wait()
	})
	if wait {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for _, p := range plugins {
			if _, err := p.WaitWelcome(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	return plugins
}

// join connects this process to the host on port as a client.
func join(b *testing.B, port int) *bridge.Bridge {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := bridge.Connect(ctx, bridge.Options{Port: port, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	if c.Role() != bridge.RoleClient {
		b.Fatalf("the bench process became %s; it must join the serve process as a client", c.Role())
	}
	return c
}

// msOf converts a duration to float milliseconds for metrics.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
