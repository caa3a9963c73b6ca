package e2e

import (
	"bytes"
	"context"
	"errors"
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

// binary is the studio-bridge executable built by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(build(m))
}

func build(m *testing.M) int {
	dir, err := os.MkdirTemp("", "studio-bridge-cloud-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cloud e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = kit.BuildBinary(dir); err != nil {
		fmt.Fprintln(os.Stderr, "cloud e2e:", err)
		return 1
	}
	return m.Run()
}

// run is one finished studio-bridge process.
type run struct {
	stdout, stderr string
	code           int
}

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

// start starts the binary.
func start(t *testing.T, environ []string, stdout, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = environ
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// runBinary runs the binary to its end (within a minute).
func runBinary(t *testing.T, environ []string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = environ
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := exitCode(t, cmd.Run())
	return run{stdout: out.String(), stderr: errb.String(), code: code}
}

// lines splits output into lines, dropping the last empty one.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
