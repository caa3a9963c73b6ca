package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
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

// TestRacingProcessesMakeOneToken: studio-bridge processes started at once
// on a fresh config directory all end with the same token, and the file
// is private.
func TestRacingProcessesMakeOneToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fresh-config")
	env := []string{authtoken.EnvConfigDir + "=" + dir}
	const n = 6
	outs := make(chan result, n)
	bin, childEnv := kit.Binary(t), kit.ChildEnv(t, env...) // built and made here, not in the goroutines
	for range n {
		go func() { outs <- runQuiet(bin, childEnv, "token") }()
	}
	var first string
	for range n {
		r := <-outs
		if r.code != 0 || len(strings.TrimSpace(r.stdout)) != 43 {
			t.Fatalf("token: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if first == "" {
			first = r.stdout
		} else if r.stdout != first {
			t.Fatalf("racing processes printed different tokens: %q and %q", first, r.stdout)
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

// runQuiet is run for a goroutine: it reports a failure as a result
// rather than with t.Fatal, which only the test's goroutine may call.
func runQuiet(bin string, env []string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		r.code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		}
		r.stderr += err.Error()
	}
	return r
}
