package bridge

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestTokenErrorNamesTheConfigDirectory: a process whose config directory
// is not the host's (two config directories, so two tokens) is told, as a
// TokenError, which token file and which config directory it used and how
// to fix it (STUDIO_BRIDGE_CONFIG_DIR, also in an MCP client's env block,
// or STUDIO_BRIDGE_TOKEN); a lazy bridge (the MCP server's) answers a
// call with the same error after UnreachableWait, not "cannot reach".
func TestTokenErrorNamesTheConfigDirectory(t *testing.T) {
	port := kit.FreePort(t)
	connect(t, port) // the host, in the test's config directory
	other := filepath.Join(t.TempDir(), "elsewhere")
	// This process's settings, as the CLI reads them from an environment
	// naming another config directory (and so another token).
	auth := authtoken.Lookup(func(k string) string { return map[string]string{authtoken.EnvConfigDir: other}[k] }, nil)
	tok, err := auth.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(other, authtoken.FileName)
	want := []string{"wrong token: ", "port " + strconv.Itoa(port), tokenFile, "config directory " + other + " (from " + authtoken.EnvConfigDir + ")",
		authtoken.EnvConfigDir, `"env" block`, ".mcp.json", authtoken.EnvToken}
	check := func(what string, err error) {
		t.Helper()
		var te *TokenError
		if !errors.As(err, &te) || protocol.CodeOf(err) != protocol.CodeUnauthorized || te.Source != tokenFile {
			t.Fatalf("%s: want a TokenError (UNAUTHORIZED) from %s, got %T %v", what, tokenFile, err, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", what, err, w)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = Connect(ctx, Options{Port: port, Log: testLog(t), Token: tok})
	check("a one-shot join", err)

	lazy, err := Connect(ctx, Options{Port: port, Log: testLog(t), Token: tok, Lazy: true, UnreachableWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("a lazy bridge starts whatever the host says: %v", err)
	}
	t.Cleanup(func() { _ = lazy.Close() })
	_, err = lazy.Sessions(ctx)
	check("a lazy bridge's call", err)
	if IsTokenError(err) && strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("a host that refuses the token is not unreachable: %v", err)
	}
}

// TestHostRefusalIsATokenError: a host that refuses this process's proof
// (reject UNAUTHORIZED) gives the same TokenError, with the host's own
// words in it.
func TestHostRefusalIsATokenError(t *testing.T) {
	tok := kit.Token(t)
	rogue := startRogue(t, func(protocol.ClientHello) protocol.Message {
		return protocol.Reject{Code: protocol.CodeUnauthorized, Message: "wrong token: use the token in /host/config/token"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Connect(ctx, Options{Port: rogue.port, Log: testLog(t), Token: tok, JoinTimeout: 3 * time.Second})
	if !IsTokenError(err) || !strings.Contains(err.Error(), "/host/config/token") || !strings.Contains(err.Error(), kit.ConfigDir(t)) {
		t.Fatalf("a host's UNAUTHORIZED: %T %v", err, err)
	}
}
