package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestRemoteClientNeedsTheHostsToken plays a devcontainer: a process with
// its own config directory (so its own token) cannot join the host (the
// host's proof does not verify with its token, so it sends nothing secret),
// is told its token may be wrong, where its own comes from and what to set,
// and exits 3; with STUDIO_BRIDGE_TOKEN set to what `studio-bridge token`
// prints beside the host, it joins with --remote.
func TestRemoteClientNeedsTheHostsToken(t *testing.T) {
	_, port := serveHost(t)
	remote := "127.0.0.1:" + strconv.Itoa(port)
	containerDir := filepath.Join(t.TempDir(), "container-config")
	elsewhere := authtoken.EnvConfigDir + "=" + containerDir

	r := run(t, 15*time.Second, []string{elsewhere}, "sessions", "--remote", remote)
	tokenFile := filepath.Join(containerDir, authtoken.FileName)
	if r.Code != 3 || !strings.Contains(r.Stderr, "wrong token") || !strings.Contains(r.Stderr, tokenFile) ||
		!strings.Contains(r.Stderr, "port "+strconv.Itoa(port)) || !strings.Contains(r.Stderr, authtoken.EnvToken) {
		t.Fatalf("another user's token: exit %d, stderr:\n%s\nwant exit 3, naming %s", r.Code, r.Stderr, tokenFile)
	}

	tok := run(t, 15*time.Second, nil, "token")
	if tok.Code != 0 || strings.TrimSpace(tok.Stdout) != kit.Token(t).Value {
		t.Fatalf("token beside the host: exit %d, %q", tok.Code, tok.Stdout)
	}
	r = run(t, 15*time.Second, []string{elsewhere, authtoken.EnvToken + "=" + strings.TrimSpace(tok.Stdout)},
		"sessions", "--remote", remote)
	if r.Code != 0 {
		t.Fatalf("with %s: exit %d, stderr:\n%s", authtoken.EnvToken, r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, tok.Stdout) {
		t.Fatal("the token appears in a client's output")
	}
}

// TestRacingProcessesMakeOneToken: studio-bridge processes started at once
// on a fresh config directory all end with the same token, and the file
// is private.
func TestRacingProcessesMakeOneToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fresh-config")
	env := []string{authtoken.EnvConfigDir + "=" + dir}
	const n = 6
	type outcome struct {
		kit.Result
		err error
	}
	outs := make(chan outcome, n)
	bin, childEnv := kit.Binary(t), kit.ChildEnv(t, env...) // built and made here, not in the goroutines
	for range n {
		go func() {
			r, err := kit.RunEnv(childEnv, 15*time.Second, bin, "token")
			outs <- outcome{r, err}
		}()
	}
	var first string
	for range n {
		r := <-outs
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.Code != 0 || len(strings.TrimSpace(r.Stdout)) != 43 {
			t.Fatalf("token: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
		}
		if first == "" {
			first = r.Stdout
		} else if r.Stdout != first {
			t.Fatalf("racing processes printed different tokens: %q and %q", first, r.Stdout)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, authtoken.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %04o", fi.Mode().Perm())
	}
}
