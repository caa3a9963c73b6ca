package emulator_test

// HTTP in a playtest follows the game's HttpService.HttpEnabled (off by
// default, as in Studio): a script run in the test's server fails with
// Studio's own words, while the plugin's own connection in that DataModel
// (no PluginConnectionService: it has a socket of its own) skips its HTTP
// /health check and connects anyway; doctor reports the setting.

import (
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestHTTPInPlayFollowsTheGameSetting(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "HTTP-OFF", "--quiet", "--play", "--no-plugin-connection-service")
	// the server's plugin reached the host although its /health request
	// failed (the client cannot reach localhost without the relay)
	waitSessions(t, b, "HTTP-OFF", protocol.ContextEdit, protocol.ContextServer)
	const notEnabled = "Http requests are not enabled. Enable via game settings"
	for _, script := range []string{
		`return game:GetService("HttpService"):GetAsync("http://127.0.0.1:1/")`,
		`return game:GetService("HttpService"):PostAsync("http://127.0.0.1:1/", "{}")`,
		`return game:GetService("HttpService"):RequestAsync({Url = "http://127.0.0.1:1/", Method = "GET"})`,
	} {
		stdout, stderr, code := cli(t, port, "exec", "--context", "server", script)
		if code == 0 || !strings.Contains(stdout+stderr, notEnabled) {
			t.Errorf("exec in the server %q: exit %d, stdout %q, stderr %q; want Studio's %q", script, code, stdout, stderr, notEnabled)
		}
	}
	d, _, _ := doctorReport(t, port)
	if c := statusOf(t, d, "studio.http", "HTTP-OFF"); c.Status != commands.StatusDegraded || !strings.Contains(c.Fix, "Allow HTTP Requests") {
		t.Errorf("studio.http = %+v; want degraded, saying where to turn it on", c)
	}
}
