// Package authtoken is the user's studio-bridge token: the secret every
// client proves it holds, and the host proves first, so that only the
// user's own processes can join the bridge host (and through it run code in
// Studio). The token never crosses the wire: both sides MAC each other's
// nonces under ClientKey, HKDF-SHA256(token, "client-auth") (clientauth.go).
//
// The token lives in a file only the user can read (mode 0600 on Unix, a
// protected user-only ACL on Windows) in the user's config directory
// (os.UserConfigDir()/studio-bridge, or STUDIO_BRIDGE_CONFIG_DIR). Whichever
// studio-bridge process first needs it creates it, atomically: it writes a
// temporary file and links (Unix) or renames without replacing (Windows) it
// into place, so that racing processes end with one token and all read it.
// It is never rotated, so a client that takes over a lost host accepts the
// same token the old host did.
//
// STUDIO_BRIDGE_TOKEN, when set, wins over the file: that is how a client
// in a devcontainer, WSL or any --remote setup presents the token of a host
// whose file it cannot read, and how a process with no config directory
// gets one at all.
//
// Only the CLI reads these variables (FromEnv, once per process); library
// code is handed the resulting Settings, or the token and directory
// resolved from them, so that tests give each their own and run in
// parallel.
//
// The MCP token (mcp.go) is a second, separate secret kept the same way
// (file mcp-token, or STUDIO_BRIDGE_MCP_TOKEN): the bearer credential of
// `mcp --http`, which MCP client configs reference, so that a config that
// leaks never hands out the user's token.
package authtoken
