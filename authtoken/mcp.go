package authtoken

// The MCP token is the bearer credential of `mcp --http`. It is not the
// user's token: a team commits its .mcp.json, and an MCP client config
// that leaked the master token would hand out the bridge itself. It lives
// in its own user-only file beside the token (same rules: 0600, atomic
// create, checked read) or comes from EnvMCPToken; never from a flag,
// because argv is readable by every local user.
const (
	// EnvMCPToken, when set, is the MCP token: it wins over the file.
	EnvMCPToken = "STUDIO_BRIDGE_MCP_TOKEN"
	// MCPFileName is the MCP token file's name in the config directory.
	MCPFileName = "mcp-token"
)

// ResolveMCP is the MCP token `mcp --http` requires and `token --mcp`
// prints: STUDIO_BRIDGE_MCP_TOKEN if set, else the MCP token file's
// (created if missing).
func (s Settings) ResolveMCP() (Token, error) {
	return s.resolve(EnvMCPToken, s.MCPToken, MCPFileName)
}

// ResolveMCP is FromEnv().ResolveMCP(): the CLI's; library code takes
// Settings.
func ResolveMCP() (Token, error) { return FromEnv().ResolveMCP() }

// LoadOrCreateMCP reads the MCP token file in dir, creating dir and the
// file (with a new random token) if they do not exist.
func LoadOrCreateMCP(dir string) (Token, error) { return loadOrCreate(dir, MCPFileName) }
