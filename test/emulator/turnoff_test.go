package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestTurningThePluginOffEndsItsSessions: the Bridge button turned off in a
// window in Play mode ends its edit, server and client sessions at once
// (the plugin says goodbye before it closes its socket): the host holds
// nothing for the resume grace, and the next command says "No active
// sessions" instead of waiting for the grace. With the emulator's
// close-drops-sends fault the goodbye is lost with the close, and the
// host falls back to holding the sessions, as after a drop.
func TestTurningThePluginOffEndsItsSessions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		action string
		held   bool
	}{
		{"goodbye arrives", []string{"--play"}, "click StudioBridgeToggle", false},
		{"goodbye lost with the close", []string{"--play", "--fault", "close-drops-sends"}, "click StudioBridgeToggle", true},
		// an unload in Edit mode ends the edit session at once too (the
		// next copy attaches a new one)
		{"plugin unloaded", nil, "reload", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireSetup(t)
			port := kit.FreePort(t)
			serve := startServe(t, "serve", port)
			studio := kit.Studio(t, "studio", port, append([]string{"--instance", "OFF"}, tc.args...)...)
			b := connect(t, port)
			if len(tc.args) > 0 {
				waitSessions(t, b, "OFF", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
			} else {
				waitSessions(t, b, "OFF", protocol.ContextEdit)
			}

			studio.Send(t, tc.action)
			// The host has handled the socket's end once it logs it: a
			// session it holds is logged as held before that.
			kit.WaitFor(t, 20*time.Second, "the host to see the plugin's socket end", func() bool {
				return strings.Contains(serve.Stdout.String(), `msg="plugin socket disconnected" instance=OFF`)
			})
			log := serve.Stdout.String()
			held := strings.Contains(log, "holding it and its calls for the resume grace")
			if held != tc.held {
				t.Fatalf("sessions held for the grace: %v, want %v; host log:\n%s", held, tc.held, log)
			}
			if tc.held || tc.action != "click StudioBridgeToggle" {
				return
			}
			if !strings.Contains(log, `reason="plugin turned off"`) {
				t.Errorf("the host did not log the plugin's reason:\n%s", log)
			}
			_, errOut, code := cli(t, port, "exec", "print(1)")
			if code != 3 || !strings.Contains(errOut, "No active sessions on port") {
				t.Fatalf("exec after the plugin was turned off: exit %d, stderr %q; want exit 3, No active sessions", code, errOut)
			}
		})
	}
}
