// Package commands holds every studio-bridge command as one Definition in
// one registry, All. The CLI, the interactive terminal and the MCP server are
// thin adapters that loop over All; none of them is imported here, and no
// command logic lives in them.
//
// A command's arguments are one struct whose field tags describe each
// argument once; flags, usage text and (for MCP) the JSON schema are all
// derived from it (see Arg and Fields).
package commands
