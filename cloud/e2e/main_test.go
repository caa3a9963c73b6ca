package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestMain removes the binary the tests built (kit.Binary).
func TestMain(m *testing.M) { kit.Main(m) }

// bridgePort listens where a bridge host would, counting connections: exec
// --cloud must never join or start one.
type bridgePort struct {
	port  int
	dials atomic.Int32
}

func newBridgePort(t *testing.T) *bridgePort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &bridgePort{port: ln.Addr().(*net.TCPAddr).Port}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.dials.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return b
}

// env is the environment of a run against s: the stand-in's key and
// place, a fresh home, and a bridge port that must stay untouched.
func env(t *testing.T, s *cloudtest.Server, bp *bridgePort, extra ...string) []string {
	home := t.TempDir()
	e := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + home, "APPDATA=" + home, "LOCALAPPDATA=" + home,
		"STUDIO_BRIDGE_PORT=" + fmt.Sprint(bp.port),
		"STUDIO_BRIDGE_CONFIG_DIR=" + kit.ConfigDir(t), // the test's token, shared with any host it starts
		"ROBLOX_API_KEY=" + s.Key,
		"ROBLOX_UNIVERSE_ID=1", "ROBLOX_PLACE_ID=2",
		"STUDIO_BRIDGE_OPEN_CLOUD_URL=" + s.URL,
	}
	return append(e, extra...)
}

// start starts the binary, ready to be sent Ctrl-C (kit.Interrupt).
func start(t *testing.T, environ []string, stdout, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), args...)
	cmd.Env = environ
	cmd.Stdout, cmd.Stderr = stdout, stderr
	kit.Interruptible(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// runBinary runs the binary to its end (within a minute).
func runBinary(t *testing.T, environ []string, args ...string) kit.Result {
	t.Helper()
	r, err := kit.RunEnv(environ, time.Minute, kit.Binary(t), args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// lines splits output into lines, dropping the last empty one.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
