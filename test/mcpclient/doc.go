// Package mcpclient checks `studio-bridge mcp` with a client nobody on the
// team wrote: the official MCP TypeScript SDK (check.mjs), over stdio and
// Streamable HTTP, against Studio sessions whose answers are known.
package mcpclient
