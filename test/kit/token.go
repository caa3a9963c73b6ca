package kit

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// A test process never resolves the token the developer's way: the CLI
// run in-process without the test's config directory (UseConfigDir) fails
// loudly, naming the fix, instead of reading or
// creating a token in the real config directory; and the developer's own
// STUDIO_BRIDGE_TOKEN (set for a devcontainer, say) is not presented to a
// test's host.
func init() {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	// A path under the test binary, a regular file: no directory can be
	// made there, on any platform.
	_ = os.Setenv(authtoken.EnvConfigDir, filepath.Join(exe, "in-process code needs kit.UseConfigDir(t)"))
	_ = os.Unsetenv(authtoken.EnvToken)
	fakeplugin.DefaultKey = authtoken.PairingKey(suiteToken)
}

// suiteToken is the token of every test's config directory in this test
// process (ConfigDir writes it there): hosts the tests start, in-process or
// as children, accept it, and the fake plugins pair with its key by default
// (fakeplugin.DefaultKey), as an installed plugin pairs with the user's
// host. A test of another user's token makes its own.
var suiteToken = authtoken.Generate()

// UseConfigDir points the CLI run inside the test process (the one reader
// of the environment: authtoken.FromEnv) at the test's config directory,
// the one ChildEnv gives every child: so a host in the test process and a
// CLI child share one token, as a user's processes do. It uses tb.Setenv,
// so the test must not be parallel; library code needs none of it (give
// it kit.Token(t) or authtoken.InDir(ConfigDir(t))).
func UseConfigDir(tb testing.TB) {
	tb.Helper()
	tb.Setenv(authtoken.EnvConfigDir, ConfigDir(tb))
	tb.Setenv(authtoken.EnvToken, "")
}

// Token is the test's token: the one in its config directory (the suite's,
// see suiteToken), which every process the test starts
// presents and accepts. For raw client-hellos and bridge.Options.Token.
func Token(tb testing.TB) authtoken.Token {
	tb.Helper()
	tok, err := authtoken.LoadOrCreate(ConfigDir(tb))
	if err != nil {
		tb.Fatalf("the test's token: %v", err)
	}
	return tok
}

// MCPToken is the test's MCP token: the one in its config directory
// (created if no process has made it yet), which `mcp --http` started by
// the test requires as `Authorization: Bearer`.
func MCPToken(tb testing.TB) authtoken.Token {
	tb.Helper()
	tok, err := authtoken.LoadOrCreateMCP(ConfigDir(tb))
	if err != nil {
		tb.Fatalf("the test's MCP token: %v", err)
	}
	return tok
}

// MCPAuth is a PostMCP edit that sends the test's MCP token.
func MCPAuth(tb testing.TB) func(*http.Request) {
	tb.Helper()
	v := "Bearer " + MCPToken(tb).Value
	return func(req *http.Request) { req.Header.Set("Authorization", v) }
}
