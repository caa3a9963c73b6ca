package kit

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/studio-bridge/studio-bridge/authtoken"
)

// configDirs holds each running top-level test's config directory, so that
// every process the test and its subtests start shares it.
var configDirs sync.Map // top-level test name → string

// ConfigDir is the test's own studio-bridge config directory
// (STUDIO_BRIDGE_CONFIG_DIR of its children): one per top-level test, shared
// by every process it and its subtests start (a subtest's client must find
// the token of its parent's host), removed when the test that made it ends.
func ConfigDir(tb testing.TB) string {
	tb.Helper()
	root, _, _ := strings.Cut(tb.Name(), "/")
	if dir, ok := configDirs.Load(root); ok {
		return dir.(string)
	}
	dir := filepath.Join(tb.TempDir(), "config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := authtoken.Store(dir, suiteToken); err != nil {
		tb.Fatalf("the test's token: %v", err)
	}
	if prev, loaded := configDirs.LoadOrStore(root, dir); loaded {
		return prev.(string)
	}
	tb.Cleanup(func() { configDirs.Delete(root) })
	return dir
}

// ChildEnv is the environment of every process a test starts: the test's
// own, without the developer's STUDIO_BRIDGE_* settings (which would point a
// child at another port or host), with the per-test STUDIO_BRIDGE_CONFIG_DIR
// and a per-test user config directory (XDG_CONFIG_HOME, APPDATA, HOME), so
// that nothing reads or writes the real one; then extra, which wins over
// all of these.
//
// This is the one place where per-test environment is set.
func ChildEnv(tb testing.TB, extra ...string) []string {
	tb.Helper()
	dir := ConfigDir(tb)
	home := filepath.Join(filepath.Dir(dir), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		tb.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STUDIO_BRIDGE_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"STUDIO_BRIDGE_CONFIG_DIR="+dir,
		"XDG_CONFIG_HOME="+home, "APPDATA="+home, "HOME="+home,
	)
	return append(env, extra...)
}
