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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	cfg := t.TempDir()
	fromFile, err := InDir(cfg).Resolve()
	if err != nil || fromFile.Source != filepath.Join(cfg, FileName) {
		t.Fatalf("resolve from the file: %v, %v", fromFile, err)
	}

	fromEnv, err := Settings{ConfigDir: cfg, Token: "a-token-set-by-the-user"}.Resolve()
	if err != nil || fromEnv.Value != "a-token-set-by-the-user" || fromEnv.Source != EnvToken {
		t.Fatalf("the env var must win over the file: %v, %v", fromEnv, err)
	}

	if _, err := (Settings{ConfigDir: cfg, Token: "short"}).Resolve(); err == nil || !strings.Contains(err.Error(), EnvToken) {
		t.Fatalf("a bad env token: %v", err)
	}
}

// TestLookup: the environment variables FromEnv reads, and where the config
// directory is without STUDIO_BRIDGE_CONFIG_DIR.
func TestLookup(t *testing.T) {
	t.Parallel()
	noDir := errors.New("no home")
	tests := []struct {
		name    string
		env     map[string]string
		userDir string
		userErr error
		want    Settings
	}{
		{"nothing set", nil, "/home/u/.config", nil, Settings{ConfigDir: filepath.Join("/home/u/.config", "studio-bridge")}},
		{"config dir wins", map[string]string{EnvConfigDir: "/portable/sb"}, "/home/u/.config", nil, Settings{ConfigDir: filepath.Join("/portable/sb"), DirFromEnv: true}},
		{"tokens", map[string]string{EnvToken: "t", EnvMCPToken: "m"}, "/c", nil, Settings{ConfigDir: filepath.Join("/c", "studio-bridge"), Token: "t", MCPToken: "m"}},
		{"no user config dir", map[string]string{EnvToken: "t"}, "", noDir, Settings{DirErr: noDir, Token: "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Lookup(func(k string) string { return tt.env[k] }, func() (string, error) { return tt.userDir, tt.userErr })
			if tt.want.ConfigDir != "" {
				tt.want.ConfigDir, _ = filepath.Abs(tt.want.ConfigDir)
			}
			if got != tt.want {
				t.Fatalf("Lookup = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNoConfigDirSaysSoAndTakesTheEnvVar(t *testing.T) {
	t.Parallel()
	s := Lookup(func(string) string { return "" }, func() (string, error) { return "", errors.New("neither $XDG_CONFIG_HOME nor $HOME are defined") })
	_, err := s.Resolve()
	var none *NoConfigDirError
	if !errors.As(err, &none) || !strings.Contains(err.Error(), EnvToken) || !strings.Contains(err.Error(), "HOME") {
		t.Fatalf("err %v; want a NoConfigDirError naming %s and why", err, EnvToken)
	}
	s.Token = "a-token-set-by-the-user"
	if tok, err := s.Resolve(); err != nil || tok.Value != "a-token-set-by-the-user" {
		t.Fatalf("with the env var: %v, %v", tok, err)
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	tok := Token{Value: Generate(), Source: "/x/token"}
	if s := tok.String(); strings.Contains(s, tok.Value) || !strings.Contains(s, "/x/token") {
		t.Fatalf("String() = %q", s)
	}
}

// A token read from a config directory the environment named says so, for
// the wrong-token message; one from the default directory does not.
func TestResolveCarriesWhereTheDirectoryCameFrom(t *testing.T) {
	t.Parallel()
	for _, fromEnv := range []bool{true, false} {
		tok, err := Settings{ConfigDir: t.TempDir(), DirFromEnv: fromEnv}.Resolve()
		if err != nil || tok.DirFromEnv != fromEnv {
			t.Fatalf("DirFromEnv %v: token %v (DirFromEnv %v), %v", fromEnv, tok, tok.DirFromEnv, err)
		}
	}
}
