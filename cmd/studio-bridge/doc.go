// Command studio-bridge drives Roblox Studio from a terminal, from CI and
// from MCP clients. See the README for usage.
//
// This package is wiring only: it sets the build's version and embedded
// plugin, tunes the garbage collector for one-shot commands, runs the
// command line (package cli) under a context that signals cancel, and maps
// what went wrong to the exit codes the README documents.
package main
