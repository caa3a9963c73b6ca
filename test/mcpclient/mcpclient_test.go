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

func TestMain(m *testing.M) { kit.Main(m) }

// build returns the studio-bridge binary, checking first that the official
// client's Node packages are here.
func build(t *testing.T) string {
	t.Helper()
	kit.SkipIfShort(t, "runs the official MCP client (Node) against the real binary")
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP client check needs its Node packages: run `npm ci --prefix test/mcpclient` (%v)", err)
	}
	return kit.Binary(t)
}

// window runs one fake plugin until the test ends; it finds each mcp process
// check.mjs starts as it would a fresh host.
func window(t *testing.T, port int, instance string) {
	t.Helper()
	kit.StartPlugin(t, fakeplugin.Config{Port: port, InstanceID: instance, PlaceName: "Place", PlaceID: 7, GameID: 8,
		Handler: fakeplugin.Studio})
}

// runCheck runs check.mjs; every mcp process it starts is the bridge host
// (nothing else holds the port), so plugins find it as they would a fresh one.
func runCheck(t *testing.T, bin string, port int, transport, scenario, expect string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "check.mjs", "--bin", bin, "--port", strconv.Itoa(port),
		"--transport", transport, "--scenario", scenario, "--expect", expect)
	cmd.Env = append(kit.ChildEnv(t), "STUDIO_BRIDGE_MCP_TOKEN="+kit.MCPToken(t).Value) // what the README's client configs send
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("check.mjs %s %s: %v", transport, scenario, err)
	}
	if !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("check.mjs printed no summary")
	}
}

// emulatedWindow runs one emulated Studio window (the real plugin source
// under luau-web) until the test ends.
func emulatedWindow(t *testing.T, port int, instance string) {
	t.Helper()
	kit.Studio(t, "emulator "+instance, port, "--instance", instance, "--quiet", "--viewport", "320x200") // the size expect-emulator.json names
}

// TestOfficialClient: the official client against studio-bridge mcp, with
// fake plugins and then with the check that matters most, the real plugin
// in emulated Studio. One window: the single-window checks over stdio and
// HTTP; a second window: the multi-window checks.
func TestOfficialClient(t *testing.T) {
	for _, tt := range []struct {
		name    string
		window  func(t *testing.T, port int, instance string)
		windows [2]string // instance ids
		expect  string
	}{
		{"fake plugins", window, [2]string{"A", "B"}, "expect-fakeplugin.json"},
		{"emulated Studio", emulatedWindow, [2]string{"11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"}, "expect-emulator.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := build(t)
			port := kit.FreePort(t)
			tt.window(t, port, tt.windows[0])
			for _, transport := range []string{"stdio", "http"} {
				runCheck(t, bin, port, transport, "single", tt.expect)
			}
			tt.window(t, port, tt.windows[1])
			runCheck(t, bin, port, "stdio", "multi", tt.expect)
		})
	}
}
