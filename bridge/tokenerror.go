package bridge

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// TokenError means the process on the bridge port and this one do not
// share the user's token: the host refused this process's proof, or could
// not prove it holds this process's token. Most often this process reads
// another config directory than the host (an MCP client starts its server
// with a minimal environment, so STUDIO_BRIDGE_CONFIG_DIR is lost); less
// often the process on the port is not a studio-bridge host of this user.
// Retrying does not help, so every surface (CLI, terminal, MCP tool
// results) shows its text as it is: which token file this process used,
// which config directory, and how to fix it. It unwraps to an UNAUTHORIZED
// *protocol.Error with the same text.
type TokenError struct {
	// Port is the bridge port.
	Port string
	// Why is what went wrong in the handshake.
	Why string
	// Holder names the process holding the port, when the OS says.
	Holder string
	// Source is where this process's token came from: a file's path, or
	// authtoken.EnvToken.
	Source string
	// DirFromEnv: the config directory came from STUDIO_BRIDGE_CONFIG_DIR.
	DirFromEnv bool
	perr       *protocol.Error
}

func newTokenError(addr string, token authtoken.Token, why string) *TokenError {
	e := &TokenError{Port: portOf(addr), Why: why, Source: token.Source, DirFromEnv: token.DirFromEnv}
	if p, ok := ProcessOnPort(e.Port); ok {
		e.Holder = p.String()
	}
	e.perr = &protocol.Error{Code: protocol.CodeUnauthorized, Message: e.text()}
	return e
}

func (e *TokenError) Error() string { return e.perr.Message }
func (e *TokenError) Unwrap() error { return e.perr }

// text words the error: what happened first (the part a client shows when
// it shows little), then where this process's token came from, then the
// fixes.
func (e *TokenError) text() string {
	var b strings.Builder
	holder := ""
	if e.Holder != "" {
		holder = " (" + e.Holder + ")"
	}
	fmt.Fprintf(&b, "wrong token: the process answering on port %s%s and this one do not share a token (%s). ", e.Port, holder, e.Why)
	if e.Source == authtoken.EnvToken {
		fmt.Fprintf(&b, "This process uses the token in %s. Fix: set %s to what `studio-bridge token` prints beside the bridge host, or unset it to use the config directory's token file", authtoken.EnvToken, authtoken.EnvToken)
	} else {
		dir := filepath.Dir(e.Source)
		from := "the default config directory; " + authtoken.EnvConfigDir + " is not set"
		if e.DirFromEnv {
			from = "from " + authtoken.EnvConfigDir
		}
		fmt.Fprintf(&b, "This process uses the token file %s, in config directory %s (%s). ", e.Source, dir, from)
		fmt.Fprintf(&b, "Fix: give this process the bridge host's config directory (`studio-bridge token --json` beside the host prints its token file as source) with %s; for an MCP server, put it in the \"env\" block of the client's server entry (.mcp.json, Cursor, VS Code), because MCP clients start servers without your shell's environment. Or set %s to what `studio-bridge token` prints beside the host", authtoken.EnvConfigDir, authtoken.EnvToken)
	}
	b.WriteString(". If the process on the port is not your bridge host, stop it. This process sent it nothing secret.")
	return b.String()
}

// IsTokenError reports whether err is (or wraps) a TokenError.
func IsTokenError(err error) bool {
	var te *TokenError
	return errors.As(err, &te)
}
