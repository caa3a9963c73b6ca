package authtoken

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMCPTokenIsItsOwnPrivateFile: the MCP token is a second secret in its
// own user-only file, never the user's token, kept across loads.
func TestMCPTokenIsItsOwnPrivateFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	master, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadOrCreateMCP(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Value == master.Value || Validate(m.Value) != nil {
		t.Fatalf("MCP token equals the master token or is invalid (%v)", Validate(m.Value))
	}
	if m.Source != filepath.Join(dir, MCPFileName) {
		t.Fatalf("source %q", m.Source)
	}
	fi, err := os.Stat(m.Source)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("MCP token file mode %04o, want 0600", fi.Mode().Perm())
	}
	if again, err := LoadOrCreateMCP(dir); err != nil || again != m {
		t.Fatalf("second load: %v, %v", again, err)
	}
}

// TestResolveMCP: the environment wins over the file and is checked; the
// file comes from the config directory.
func TestResolveMCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fromFile, err := InDir(dir).ResolveMCP()
	if err != nil || fromFile.Source != filepath.Join(dir, MCPFileName) {
		t.Fatalf("from the file: %v, %v", fromFile, err)
	}
	if got, err := (Settings{ConfigDir: dir, MCPToken: "a-chosen-mcp-token-value"}).ResolveMCP(); err != nil || got.Value != "a-chosen-mcp-token-value" || got.Source != EnvMCPToken {
		t.Fatalf("from the environment: %v, %v", got, err)
	}
	if _, err := (Settings{ConfigDir: dir, MCPToken: "short"}).ResolveMCP(); err == nil || !strings.Contains(err.Error(), EnvMCPToken) {
		t.Fatalf("a bad environment token: %v", err)
	}
	if got, err := (Settings{ConfigDir: dir, Token: "a-token-set-by-the-user"}).ResolveMCP(); err != nil || got != fromFile {
		t.Fatalf("the user's token is not the MCP token: %v, %v", got, err)
	}
}
