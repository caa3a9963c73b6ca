package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestTokenCommand: `token` prints the token every process of this user
// presents (creating it on first use), STUDIO_BRIDGE_TOKEN when that is
// set, and without a config directory says so, exit 3.
func TestTokenCommand(t *testing.T) {
	out, errOut, code := run(t, "token")
	want := kit.Token(t)
	if code != exitOK || out != want.Value+"\n" || errOut != "" {
		t.Fatalf("token: exit %d, stdout %q, stderr %q; want the test's token", code, out, errOut)
	}
	out, _, code = run(t, "token", "--json")
	var data struct{ Token, Source string }
	if code != exitOK || json.Unmarshal([]byte(out), &data) != nil || data.Token != want.Value ||
		data.Source != filepath.Join(kit.ConfigDir(t), authtoken.FileName) {
		t.Fatalf("token --json: exit %d, %q", code, out)
	}

	t.Setenv(authtoken.EnvToken, "a-token-from-the-environment")
	if out, _, code := runAsIs(t, "token"); code != exitOK || out != "a-token-from-the-environment\n" {
		t.Fatalf("with %s: exit %d, %q", authtoken.EnvToken, code, out)
	}
}

func TestNoConfigDirIsNamed(t *testing.T) {
	if _, err := os.UserConfigDir(); err != nil {
		t.Skip("this machine has no config directory to take away")
	}
	kit.UseConfigDir(t)
	t.Setenv(authtoken.EnvConfigDir, "")
	for _, k := range []string{"XDG_CONFIG_HOME", "HOME", "AppData"} {
		t.Setenv(k, "")
	}
	if _, err := os.UserConfigDir(); err == nil {
		t.Skip("os.UserConfigDir needs no environment here")
	}
	for _, args := range [][]string{{"token"}, {"--port", fmt.Sprint(kit.FreePort(t)), "sessions"}} {
		out, errOut, code := runAsIs(t, args...)
		if code != exitNoSession || out != "" || !strings.Contains(errOut, "no config directory") || !strings.Contains(errOut, authtoken.EnvToken) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestUnauthorizedExits3(t *testing.T) {
	if got := exitCode(protocol.Errorf(protocol.CodeUnauthorized, "wrong token")); got != exitNoSession {
		t.Fatalf("exit %d", got)
	}
}
