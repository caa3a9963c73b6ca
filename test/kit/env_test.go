package kit

import (
	"os"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/authtoken"
)

// envValue is what a child sees for key: the last entry wins, as in os/exec.
func envValue(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

func TestChildEnv(t *testing.T) {
	t.Setenv("STUDIO_BRIDGE_REMOTE", "elsewhere:1")
	t.Setenv("STUDIO_BRIDGE_PORT", "1")
	t.Setenv("STUDIO_BRIDGE_CONFIG_DIR", "/the/developer/config")
	env := ChildEnv(t, "STUDIO_BRIDGE_PORT=2")

	for _, kv := range env {
		if strings.HasPrefix(kv, "STUDIO_BRIDGE_REMOTE=") || kv == "STUDIO_BRIDGE_PORT=1" || kv == "STUDIO_BRIDGE_CONFIG_DIR=/the/developer/config" {
			t.Errorf("the child environment keeps the developer's %s", kv)
		}
	}
	if v, _ := envValue(env, "STUDIO_BRIDGE_PORT"); v != "2" {
		t.Errorf("STUDIO_BRIDGE_PORT = %q, want the extra 2", v)
	}
	dir, ok := envValue(env, "STUDIO_BRIDGE_CONFIG_DIR")
	if !ok || dir != ConfigDir(t) {
		t.Fatalf("STUDIO_BRIDGE_CONFIG_DIR = %q, want the test's %q", dir, ConfigDir(t))
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("config dir %s: %v", dir, err)
	}
	for _, key := range []string{"XDG_CONFIG_HOME", "APPDATA", "HOME"} {
		if v, _ := envValue(env, key); v == "" || v == os.Getenv(key) {
			t.Errorf("%s = %q: want a per-test directory", key, v)
		}
	}
	// Every process of one test and its subtests shares the directory.
	if again, _ := envValue(ChildEnv(t), "STUDIO_BRIDGE_CONFIG_DIR"); again != dir {
		t.Errorf("second ChildEnv has config dir %q, want the same %q", again, dir)
	}
	t.Run("subtest", func(t *testing.T) {
		if sub, _ := envValue(ChildEnv(t), "STUDIO_BRIDGE_CONFIG_DIR"); sub != dir {
			t.Errorf("a subtest has config dir %q, want its parent's %q", sub, dir)
		}
	})
}

func TestConfigDirPerTest(t *testing.T) {
	if _, ok := configDirs.Load("TestChildEnv"); ok {
		t.Fatal("TestChildEnv's config dir outlived the test")
	}
	if ConfigDir(t) == "" {
		t.Fatal("no config dir")
	}
}

// TestOneTokenPerTest: the token in-process code resolves after
// UseConfigDir is the one Token gives and the file every child reads; and
// without UseConfigDir, in-process code cannot resolve one at all.
func TestOneTokenPerTest(t *testing.T) {
	t.Run("without UseConfigDir", func(t *testing.T) {
		_, err := authtoken.Resolve()
		if err == nil || !strings.Contains(err.Error(), "kit.UseConfigDir") {
			t.Fatalf("resolve outside UseConfigDir: %v; want a failure naming kit.UseConfigDir", err)
		}
	})
	UseConfigDir(t)
	resolved, err := authtoken.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	// The same secret in the same file (resolved through the environment,
	// it also records that the directory came from there).
	same := func(a, b authtoken.Token) bool { return a.Value == b.Value && a.Source == b.Source }
	if want := Token(t); !same(resolved, want) {
		t.Fatalf("in-process token %v, test token %v", resolved, want)
	}
	dir, _ := envValue(ChildEnv(t), authtoken.EnvConfigDir)
	if child, err := authtoken.LoadOrCreate(dir); err != nil || !same(child, resolved) {
		t.Fatalf("a child's token %v (%v), in-process %v", child, err, resolved)
	}
	t.Run("subtest", func(t *testing.T) {
		if !same(Token(t), resolved) {
			t.Fatal("a subtest has another token than its parent")
		}
	})
}
