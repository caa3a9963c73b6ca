package mcp

import (
	"encoding/json"
	"strings"

	"github.com/studio-bridge/studio-bridge/commands"
)

// (Step spells "call studio_play with {"action":"stop"}"; People spells
// "run `studio-bridge play stop`".)

// Spelling is how MCP words what differs between surfaces: arguments by
// their input-schema names, next steps as tool calls, and no usage line
// (the input schema is the usage).
var Spelling commands.Spelling = mcpSpelling{}

type mcpSpelling struct{}

func (mcpSpelling) Arg(name string) string { return name }

func (mcpSpelling) Step(path string, words ...string) string {
	d := commands.Lookup(path)
	if d == nil {
		return "call studio_" + strings.ReplaceAll(path, " ", "_")
	}
	in := map[string]string{}
	for i, a := range d.Slots() {
		if i < len(words) {
			in[a.Name] = words[i]
		}
	}
	step := "call " + ToolName(d)
	if len(in) > 0 {
		raw, _ := json.Marshal(in)
		step += " with " + string(raw)
	}
	return step
}

func (mcpSpelling) Usage(string) string { return "" }

func (mcpSpelling) Folder(abs string) string {
	if abs == "" {
		return "the server's current folder"
	}
	return "the server's current folder (" + abs + ")"
}
