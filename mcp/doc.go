// Package mcp serves studio-bridge to AI agents over the Model Context
// Protocol. It is a generic adapter over the command registry: every
// definition in commands.All with MCP set becomes a tool named
// "studio_<name>" (a group's leaf "studio_<group>_<leaf>"), with its input
// schema, output schema, title and description derived from the
// definition. A call decodes its input, runs through commands.Invoke, and
// renders the Outcome (toolResult; resources: runAsResource). No Studio
// logic and no error classification lives here; Spelling words arguments
// and next steps as an agent uses them.
//
// The contract (tool names, schemas, error texts) is described in
// docs/mcp.md; the golden files in testdata/ pin it. Two
// fields of the spec's studio_sessions example are absent on purpose:
// placeFile, because no Roblox API gives a plugin the local path of the
// place it has open, and origin ("user" or "managed"), because nothing tells
// a plugin whether `studio-bridge launch` started its Studio window.
//
// The project root is the client's first local root (roots/list) unless
// --project or STUDIO_BRIDGE_PROJECT names one: per call for the files a
// tool reads (roots.go, projectRoot), and once per process for the Rojo
// source map that turns locations into files (mapRoot).
//
// Error results carry the spec's text under "error", unchanged; where more
// is known it goes in a "detail" field beside it (why no host answered;
// which part of a missing instance path exists).
package mcp
