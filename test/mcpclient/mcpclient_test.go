package mcpclient

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestMain(m *testing.M) { os.Exit(kit.Main(m)) }

// build returns the studio-bridge binary, checking first that the official
// client's Node packages are here.
func build(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP client check needs its Node packages: run `npm ci --prefix test/mcpclient` (%v)", err)
	}
	return kit.Binary(t)
}

func window(t *testing.T, port int, instance string) {
	t.Helper()
	p := fakeplugin.Start(fakeplugin.Config{Port: port, InstanceID: instance, PlaceName: "Place", PlaceID: 7, GameID: 8,
		Handler: fakeplugin.Studio, RetryDelays: []time.Duration{50 * time.Millisecond}})
	t.Cleanup(p.Close)
}

// runCheck runs check.mjs; every mcp process it starts is the bridge host
// (nothing else holds the port), so plugins find it as they would a fresh one.
func runCheck(t *testing.T, bin string, port int, transport, scenario, expect string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "check.mjs", "--bin", bin, "--port", strconv.Itoa(port),
		"--transport", transport, "--scenario", scenario, "--expect", expect)
	cmd.Env = kit.ChildEnv(t)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("check.mjs %s %s: %v", transport, scenario, err)
	}
	if !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("check.mjs printed no summary")
	}
}

func TestOfficialClientOneWindow(t *testing.T) {
	bin := build(t)
	port := kit.FreePort(t)
	window(t, port, "A")
	for _, transport := range []string{"stdio", "http"} {
		runCheck(t, bin, port, transport, "single", "expect-fakeplugin.json")
	}
}

func TestOfficialClientTwoWindows(t *testing.T) {
	bin := build(t)
	port := kit.FreePort(t)
	window(t, port, "A")
	window(t, port, "B")
	runCheck(t, bin, port, "stdio", "multi", "expect-fakeplugin.json")
}

// emulatedWindow runs one emulated Studio window (the real plugin source
// under luau-web) until the test ends.
func emulatedWindow(t *testing.T, port int, instance string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("..", "emulator", "node_modules", "luau-web")); err != nil {
		t.Fatalf("the emulator needs its Node packages: run `npm ci --prefix test/emulator` (%v)", err)
	}
	kit.Start(t, "emulator "+instance, kit.Options{Combined: true}, "node", filepath.Join("..", "emulator", "bin", "studio.mjs"),
		"--port", strconv.Itoa(port), "--instance", instance, "--quiet")
}

// TestOfficialClientAgainstTheEmulator is the check that matters most: the
// official client, studio-bridge mcp, and the real plugin in emulated Studio.
func TestOfficialClientAgainstTheEmulator(t *testing.T) {
	bin := build(t)
	port := kit.FreePort(t)
	emulatedWindow(t, port, "11111111-1111-1111-1111-111111111111")
	for _, transport := range []string{"stdio", "http"} {
		runCheck(t, bin, port, transport, "single", "expect-emulator.json")
	}
	emulatedWindow(t, port, "22222222-2222-2222-2222-222222222222")
	runCheck(t, bin, port, "stdio", "multi", "expect-emulator.json")
}
