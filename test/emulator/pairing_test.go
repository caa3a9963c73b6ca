package emulator_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// TestEmulatorPairing (issue 22 items 1 and 2): the emulated window pairs
// by default from the config directory its environment names, or from
// --config-dir; run --unpaired, or against a host of another token, it
// attaches nothing. An unpaired plugin shows the host's UNAUTHORIZED reject
// naming install-plugin in Output; against a host that cannot prove the key
// (a rogue host: another user's studio-bridge on the port) the plugin
// refuses to act and says so.
func TestEmulatorPairing(t *testing.T) {
	requireSetup(t)
	port := kit.FreePort(t)
	startServe(t, "serve", port)
	b := connect(t, port)

	// --config-dir names the directory (here the one the environment
	// names too); the window pairs and attaches.
	kit.Studio(t, "paired", port, "--instance", "PAIRED", "--quiet", "--config-dir", kit.ConfigDir(t))
	waitSessions(t, b, "PAIRED", protocol.ContextEdit)

	unpaired := kit.Studio(t, "unpaired", port, "--instance", "UNPAIRED", "--unpaired")
	kit.WaitFor(t, 30*time.Second, "the unpaired plugin to show the host's reject", func() bool {
		out := unpaired.Stdout.String()
		return strings.Contains(out, "not paired") && strings.Contains(out, "studio-bridge install-plugin")
	})

	other := filepath.Join(t.TempDir(), "other-user")
	if err := authtoken.Store(other, authtoken.Generate()); err != nil {
		t.Fatal(err)
	}
	stale := kit.Studio(t, "stale", port, "--instance", "STALE", "--config-dir", other)
	kit.WaitFor(t, 30*time.Second, "the plugin of another token to refuse the host", func() bool {
		return strings.Contains(stale.Stdout.String(), "could not prove it holds this plugin's pairing key")
	})
	for _, s := range sessions(t, b) {
		if s.InstanceID == "UNPAIRED" || s.InstanceID == "STALE" {
			t.Fatalf("a window without the host's key was attached: %+v", s)
		}
	}
}

// TestRogueHostCannotCommandTheEmulator: a host run with another token
// holds the port; the real plugin (paired with the user's token) refuses
// it before attaching, so the rogue host never gets a session to command.
func TestRogueHostCannotCommandTheEmulator(t *testing.T) {
	requireSetup(t)
	port := kit.FreePort(t)
	rogueToken := authtoken.Generate()
	kit.Serve(t, "rogue", port, kit.Options{Dir: emulatorD, Combined: true, Env: []string{authtoken.EnvToken + "=" + rogueToken}})
	studio := kit.Studio(t, "studio", port, "--instance", "VICTIM")
	kit.WaitFor(t, 30*time.Second, "the plugin to refuse the rogue host", func() bool {
		return strings.Contains(studio.Stdout.String(), "could not prove it holds this plugin's pairing key")
	})
	rogue := bridgekit.Connect(t, bridge.Options{Port: port, Version: "0.0.0-e2e", Token: authtoken.Token{Value: rogueToken, Source: "the rogue's"}})
	if s := sessions(t, rogue); len(s) != 0 {
		t.Fatalf("the rogue host got sessions to command: %+v", s)
	}
}
