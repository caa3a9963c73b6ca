package emulator_test

// HTTP in a playtest follows the game's HttpService.HttpEnabled (off by
// default, as in Studio): a script run in the test's server fails with
// Studio's own words, while the plugin's own connection in that DataModel
// (no PluginConnectionService: it has a socket of its own) skips its HTTP
// /health check and connects anyway; doctor reports the setting.

import (
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
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

// A game server's HTTP budget spent (--http-requests-per-minute 1: the
// server plugin's first /health check uses it; a script then meets
// "Number of requests exceeded limit"): after every socket drops, the
// server's plugin still reconnects (a /health check it makes now fails
// with the limit error, and it goes straight to its WebSocket).
func TestHTTPBudgetSpentInPlay(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "HTTP-LIMIT", "--quiet", "--play", "--no-plugin-connection-service",
		"--http-enabled", "--http-requests-per-minute", "1")
	waitSessions(t, b, "HTTP-LIMIT", protocol.ContextEdit, protocol.ContextServer)
	if stdout, stderr, code := cli(t, port, "exec", "--context", "server",
		`return pcall(function() return game:GetService("HttpService"):GetAsync("http://127.0.0.1:1/") end)`); code != 0 || !strings.Contains(stdout, "Number of requests exceeded limit") {
		t.Fatalf("a request over the budget: exit %d, stdout %q, stderr %q; want Studio's limit error", code, stdout, stderr)
	}
	studio.Send(t, "drop")
	kit.WaitFor(t, 30*time.Second, "the server's plugin to answer again after the drop", func() bool {
		stdout, _, code := cli(t, port, "--timeout", "5s", "exec", "--context", "server", `return "back"`)
		return code == 0 && strings.Contains(stdout, "back")
	})
}
