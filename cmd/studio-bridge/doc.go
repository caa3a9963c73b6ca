// Command studio-bridge drives Roblox Studio from a terminal, from CI and
// from MCP clients. See the README for usage.
package main
