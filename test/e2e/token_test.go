package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestRemoteClientNeedsTheHostsToken plays a devcontainer: a process with
// its own config directory (so its own token) cannot join the host, is told
// where the token lives, and exits 3; with STUDIO_BRIDGE_TOKEN set to what
// `studio-bridge token` prints beside the host, it joins with --remote.
func TestRemoteClientNeedsTheHostsToken(t *testing.T) {
	port := kit.FreePort(t)
	serve(t, "host", port, true)
	remote := "127.0.0.1:" + strconv.Itoa(port)
	elsewhere := authtoken.EnvConfigDir + "=" + filepath.Join(t.TempDir(), "container-config")

	r := run(t, 15*time.Second, []string{elsewhere}, "sessions", "--remote", remote)
	tokenFile := filepath.Join(kit.ConfigDir(t), authtoken.FileName)
	if r.code != 3 || !strings.Contains(r.stderr, "wrong token") || !strings.Contains(r.stderr, tokenFile) {
		t.Fatalf("another user's token: exit %d, stderr:\n%s\nwant exit 3, naming %s", r.code, r.stderr, tokenFile)
	}

	tok := run(t, 15*time.Second, nil, "token")
	if tok.code != 0 || strings.TrimSpace(tok.stdout) != kit.Token(t).Value {
		t.Fatalf("token beside the host: exit %d, %q", tok.code, tok.stdout)
	}
	r = run(t, 15*time.Second, []string{elsewhere, authtoken.EnvToken + "=" + strings.TrimSpace(tok.stdout)},
		"sessions", "--remote", remote)
	if r.code != 0 {
		t.Fatalf("with %s: exit %d, stderr:\n%s", authtoken.EnvToken, r.code, r.stderr)
	}
	if strings.Contains(r.stderr, tok.stdout) {
		t.Fatal("the token appears in a client's output")
	}
}
