// Package cli is studio-bridge's command-line surface: the urfave/cli
// adapter that turns the command registry (package commands) into
// commands and flags, binds arguments, renders results for people or as
// JSON, streams output lines, completes words for shells, and wires the
// long-lived surfaces: the terminal (package terminal), the MCP server
// (package mcp) and serve.
//
// Run returns errors rather than exit codes: the main package reports them
// and maps them to the exit codes the README documents. Dependencies flow
// one way: main → cli → {terminal, mcp, commands} → bridge → protocol;
// nothing below cli knows about the command line.
package cli
