package authtoken

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateMakesOnePrivateTokenAndKeepsIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "studio-bridge")
	first, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Value) != 43 || Validate(first.Value) != nil {
		t.Fatalf("generated token %d chars, valid: %v", len(first.Value), Validate(first.Value))
	}
	if first.Source != filepath.Join(dir, FileName) {
		t.Fatalf("source %q", first.Source)
	}
	fi, err := os.Stat(first.Source)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %04o, want 0600", fi.Mode().Perm())
	}
	again, err := LoadOrCreate(dir)
	if err != nil || again != first {
		t.Fatalf("second load: %v, %v; want the same token (never rotated)", again, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".token-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

// TestRacingCreatorsAgree: processes starting at once (here goroutines on
// the same directory) must end with one token, the same for all.
func TestRacingCreatorsAgree(t *testing.T) {
	for range 20 {
		dir := t.TempDir()
		const n = 8
		got := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				tok, err := LoadOrCreate(dir)
				if err != nil {
					t.Error(err)
				}
				got[i] = tok.Value
			})
		}
		wg.Wait()
		for i := range got {
			if got[i] != got[0] || got[i] == "" {
				t.Fatalf("racing creators disagree: %q", got)
			}
		}
	}
}

func TestBadTokenFilesRefused(t *testing.T) {
	tests := []struct {
		name, content string
		mode          os.FileMode
		want          string
		unixOnly      bool
	}{
		{"readable by others", strings.Repeat("a", 43), 0o644, "chmod 600", true},
		{"too short", "Zq9xK", 0o600, "remove it", false},
		{"spaces inside", "0123456789 abcdefghij", 0o600, "remove it", false},
		{"huge", strings.Repeat("a", 10000), 0o600, "remove it", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.unixOnly && runtime.GOOS == "windows" {
				t.Skip("mode bits are a Unix notion; Windows uses the ACL")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			_, err := LoadOrCreate(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err %v; want it to name %s and say %q", err, path, tt.want)
			}
			if strings.Contains(err.Error(), tt.content) {
				t.Fatalf("the error shows the file's content: %v", err)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv(EnvConfigDir, cfg)
	t.Setenv(EnvToken, "")
	fromFile, err := Resolve()
	if err != nil || fromFile.Source != filepath.Join(cfg, FileName) {
		t.Fatalf("resolve from the file: %v, %v", fromFile, err)
	}

	t.Setenv(EnvToken, "a-token-set-by-the-user")
	fromEnv, err := Resolve()
	if err != nil || fromEnv.Value != "a-token-set-by-the-user" || fromEnv.Source != EnvToken {
		t.Fatalf("the env var must win over the file: %v, %v", fromEnv, err)
	}

	t.Setenv(EnvToken, "short")
	if _, err := Resolve(); err == nil || !strings.Contains(err.Error(), EnvToken) {
		t.Fatalf("a bad env token: %v", err)
	}
}

func TestNoConfigDirSaysSoAndTakesTheEnvVar(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("os.UserConfigDir fails for want of XDG_CONFIG_HOME and HOME on Linux only")
	}
	t.Setenv(EnvConfigDir, "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv(EnvToken, "")
	_, err := Resolve()
	var none *NoConfigDirError
	if !errors.As(err, &none) || !strings.Contains(err.Error(), EnvToken) {
		t.Fatalf("err %v; want a NoConfigDirError naming %s", err, EnvToken)
	}
	t.Setenv(EnvToken, "a-token-set-by-the-user")
	if tok, err := Resolve(); err != nil || tok.Value != "a-token-set-by-the-user" {
		t.Fatalf("with the env var: %v, %v", tok, err)
	}
}

func TestEqual(t *testing.T) {
	tok := Generate()
	tests := []struct {
		name                string
		presented, expected string
		want                bool
	}{
		{"same", tok, tok, true},
		{"wrong", Generate(), tok, false},
		{"missing", "", tok, false},
		{"prefix", tok[:20], tok, false},
		{"host without a token", "", "", false},
	}
	for _, tt := range tests {
		if got := Equal(tt.presented, tt.expected); got != tt.want {
			t.Errorf("%s: Equal = %v", tt.name, got)
		}
	}
}

func TestStringHidesTheSecret(t *testing.T) {
	tok := Token{Value: Generate(), Source: "/x/token"}
	if s := tok.String(); strings.Contains(s, tok.Value) || !strings.Contains(s, "/x/token") {
		t.Fatalf("String() = %q", s)
	}
}
