package kit

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Serve starts `studio-bridge serve --port port args...` and waits (at most
// 15 s) until it is the host: /health answers with its pid. It fails tb if
// the process exits first. Stopped at cleanup like every Start.
func Serve(tb testing.TB, name string, port int, opt Options, args ...string) *Proc {
	tb.Helper()
	p := Start(tb, name, opt, Binary(tb), append([]string{"serve", "--port", strconv.Itoa(port)}, args...)...)
	type health struct {
		Status string `json:"status"`
		PID    int    `json:"pid"`
	}
	WaitHealth(tb, port, 15*time.Second, name+" to be the host on port "+strconv.Itoa(port), func(h health) bool {
		if !p.Running() {
			tb.Fatalf("%s exited before it served; output:\n%s", name, p.Stderr.String())
		}
		return h.Status == "ok" && h.PID == p.PID()
	})
	return p
}

// HostFile is the file a host on port writes in the test's config
// directory (ConfigDir) and a later process reads to name a host that holds
// the port but does not answer (bridge's hostFilePath).
func HostFile(tb testing.TB, port int) string {
	tb.Helper()
	return filepath.Join(ConfigDir(tb), "host-"+strconv.Itoa(port)+".json")
}

// EmulatorDir is test/emulator, where the Studio emulator lives.
func EmulatorDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "emulator")
}

// Studio starts one emulated Studio window (node bin/studio.mjs: the real
// plugin source under luau-web) on port with args, in test/emulator, with a
// stdin for its commands (Proc.Send), and waits (at most 30 s) until the
// window is ready: its plugin runs and looks for a host. It fails tb,
// saying what to run, when the emulator's Node packages are missing.
func Studio(tb testing.TB, name string, port int, args ...string) *Proc {
	tb.Helper()
	SkipIfShort(tb, "runs the Studio emulator (Node)")
	dir := EmulatorDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "luau-web", "package.json")); err != nil {
		tb.Fatalf("the Studio emulator needs its Node packages: run `npm ci --prefix test/emulator` (%v)", err)
	}
	p := Start(tb, name, Options{Dir: dir, Combined: true, Stdin: true}, "node",
		append([]string{"bin/studio.mjs", "--port", strconv.Itoa(port)}, args...)...)
	WaitFor(tb, 30*time.Second, name+" to be ready", func() bool {
		if !p.Running() {
			tb.Fatalf("%s exited before it was ready; output:\n%s", name, p.Stdout.String())
		}
		return strings.Contains(p.Stdout.String(), "emulator: window ready")
	})
	return p
}
