package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

func TestMain(m *testing.M) { os.Exit(kit.Main(m)) }

// childEnv is the environment of a studio-bridge child (kit.ChildEnv).
// BENCH_SERVE_GODEBUG, when set, becomes the GODEBUG of the children (e.g.
// gctrace=1 to see the host's heap and stacks in its log, printed by the
// Scale benchmark); otherwise they run without this process's GODEBUG.
func childEnv(b testing.TB) []string {
	return kit.ChildEnv(b, "GODEBUG="+os.Getenv("BENCH_SERVE_GODEBUG"))
}

// startServe starts `studio-bridge serve` on port, its stdout and stderr in
// one log, and waits until it is the host; it is stopped at cleanup, or
// earlier by Stop.
func startServe(b *testing.B, port int) *kit.Proc {
	b.Helper()
	return kit.Serve(b, "serve", port, kit.Options{Env: childEnv(b), Combined: true})
}

// logTail returns the end of the process's output, for failure messages.
func logTail(p *kit.Proc) string {
	out := p.Stdout.String()
	return out[max(0, len(out)-4000):]
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
	if runtime.GOOS != "linux" {
		b.Skip("the host's memory is read from /proc/<pid>/status, which only Linux has")
	}
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

// standbyCluster is one failover round's world: a serve host on a free
// port, a standby serve process joined to it, and fake plugins.
type standbyCluster struct {
	port          int
	host, standby *kit.Proc
	stops         []func()
}

// start starts the cluster with nPlugins plugins and returns once the host
// has them all (and 200 ms more). Whatever it started, stop ends, last
// started first, even after start failed half-way (defer c.stop() before).
func (c *standbyCluster) start(b *testing.B, nPlugins int) {
	b.Helper()
	c.port = kit.FreePort(b)
	c.host = startServe(b, c.port)
	c.stops = append(c.stops, c.host.Stop)
	c.standby = kit.Start(b, "standby", kit.Options{Env: childEnv(b), Combined: true}, kit.Binary(b), "serve", "--port", strconv.Itoa(c.port))
	c.stops = append(c.stops, c.standby.Stop)
	kit.WaitHealth(b, c.port, 15*time.Second, "the standby to join", func(h bridge.Health) bool { return h.Clients == 1 })
	for i := range nPlugins {
		pl := fakeplugin.Start(fakeplugin.Config{Port: c.port, InstanceID: "studio-" + strconv.Itoa(i), Handler: benchutil.StateHandler})
		c.stops = append(c.stops, pl.Close)
	}
	kit.WaitHealth(b, c.port, 15*time.Second, "the plugins to register", func(h bridge.Health) bool { return h.Sessions == nPlugins })
	time.Sleep(200 * time.Millisecond)
}

// stop ends what start started, last first.
func (c *standbyCluster) stop() {
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
}

// join connects this process to the host on port as a client.
func join(b *testing.B, port int) *bridge.Bridge {
	b.Helper()
	c := bridgekit.Connect(b, bridge.Options{Port: port, Version: "bench"})
	if c.Role() != bridge.RoleClient {
		b.Fatalf("the bench process became %s; it must join the serve process as a client", c.Role())
	}
	return c
}

// msOf converts a duration to float milliseconds for metrics.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
