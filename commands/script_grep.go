package commands

import (
	"context"
	"fmt"

	"github.com/studio-bridge/studio-bridge/bridge"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// ScriptGrepArgs are script grep's arguments.
type ScriptGrepArgs struct {
	Pattern      string   `json:"pattern" pos:"true" required:"true" usage:"a Luau pattern (or plain text with --literal)" desc:"A Luau pattern (string.find syntax: %d, %a, [abc], .-), or plain text with literal. Matched per line."`
	Literal      bool     `json:"literal" usage:"plain text, not a Luau pattern" desc:"Treat pattern as plain text. Default: false."`
	IgnoreCase   bool     `json:"ignoreCase" short:"i" usage:"ignore case" desc:"Match without regard to case. Default: false."`
	ContextLines int      `json:"contextLines" default:"0" usage:"lines of context around each match (at most 20)" desc:"Lines of context before and after each match (0-20). Default: 0."`
	Root         string   `json:"root" usage:"search only under this instance path" desc:"Search only the scripts under this instance path (e.g. 'ServerScriptService'). Default: the whole place."`
	Classes      []string `json:"classes" flag:"class" enum:"Script,LocalScript,ModuleScript" usage:"only these script classes, comma-separated" desc:"Only scripts of these classes. Default: all three."`
	MaxPerScript int      `json:"maxPerScript" default:"20" usage:"at most this many matches per script (1-1000)" desc:"At most this many matches per script (1-1000); scripts with more are listed in cutScripts. Default: 20."`
	MaxMatches   int      `json:"maxMatches" default:"100" usage:"at most this many matches in all (1-5000); then a cursor for the next page" desc:"At most this many matches per page (1-5000); nextCursor then continues the search. Default: 100."`
	Cursor       string   `json:"cursor" usage:"continue a search: the cursor a previous page printed" desc:"The nextCursor of a previous page, to continue that search with the same arguments."`
	scriptWhere
}

// ScriptGrepData is script grep's output.
type ScriptGrepData = actions.ScriptGrepResult

// ScriptGrep searches the text of the place's scripts.
var ScriptGrep = Define(Spec[ScriptGrepArgs, ScriptGrepData]{
	Definition: Definition{
		Name:    "grep",
		Group:   ScriptGroup,
		Title:   "Search scripts",
		Summary: "Search the place's scripts (their editor text) for a Luau pattern or plain text.",
		Description: "Search every script's text as the user sees it (unsaved editor text included) for a Luau pattern or plain text (literal), line by line, in tree order. " +
			"Returns matches [{path, line, column, text}]; when more remain, nextCursor: call again with cursor set to it (and the same other arguments) for the next page. " +
			"The plugin searches in short slices so Studio stays responsive on a large place.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		MCP:            true,
		LargeOutput:    true,
		Timeout:        120 * time.Second,
		Noun:           "Script search",
	},
	Retarget: func(args *ScriptGrepArgs, t bridge.Target) (bridge.Target, error) { return args.retarget(t) },
	Run:      runScriptGrep,
})

func runScriptGrep(ctx context.Context, env *Env, args *ScriptGrepArgs) (*Result, error) {
	if args.ContextLines < 0 || args.ContextLines > 20 {
		return nil, UsageError{fmt.Errorf("script grep: --context-lines must be 0-20, got %d", args.ContextLines)}
	}
	if args.MaxPerScript < 1 || args.MaxPerScript > 1000 {
		return nil, UsageError{fmt.Errorf("script grep: --max-per-script must be 1-1000, got %d", args.MaxPerScript)}
	}
	if args.MaxMatches < 1 || args.MaxMatches > 5000 {
		return nil, UsageError{fmt.Errorf("script grep: --max-matches must be 1-5000, got %d", args.MaxMatches)}
	}
	req := actions.ScriptGrepRequest{
		Pattern: args.Pattern, Literal: args.Literal, IgnoreCase: args.IgnoreCase, ContextLines: args.ContextLines,
		Root: args.Root, Classes: args.Classes, MaxPerScript: args.MaxPerScript, MaxMatches: args.MaxMatches,
		Cursor: args.Cursor, AllowPlay: args.allowPlay(),
	}
	done := env.StatusAfter("searching scripts…")
	var data ScriptGrepData
	err := action(ctx, env, actions.ScriptGrep, req, &data, nil)
	done()
	if err != nil {
		if args.Root != "" {
			err = notInStudio(SourceMap(), err, args.Root) // a mapped folder Studio lacks
		}
		return nil, err
	}
	if data.Matches == nil {
		data.Matches = []actions.ScriptGrepMatch{}
	}
	m := SourceMap()
	for i := range data.Matches {
		data.Matches[i].File = syncedFile(m, data.Matches[i].Path)
	}
	return &Result{Data: data, Render: func() string { return renderScriptGrep(data) }, Note: scriptGrepNote(data)}, nil
}

// renderScriptGrep writes grep's format: path:line:column: text, context
// lines as path-line- text, groups separated by "--".
func renderScriptGrep(d ScriptGrepData) string {
	var b strings.Builder
	withContext := false
	for _, m := range d.Matches {
		if len(m.Before) > 0 || len(m.After) > 0 {
			withContext = true
		}
	}
	for i, m := range d.Matches {
		if withContext && i > 0 {
			b.WriteString("--\n")
		}
		// a synced script's lines are shown where they live: its file
		where := m.Path
		if m.File != "" {
			where = m.File
		}
		for k, l := range m.Before {
			fmt.Fprintf(&b, "%s-%d- %s\n", where, m.Line-len(m.Before)+k, l)
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", where, m.Line, m.Column, m.Text)
		for k, l := range m.After {
			fmt.Fprintf(&b, "%s-%d- %s\n", where, m.Line+1+k, l)
		}
	}
	return b.String()
}

func scriptGrepNote(d ScriptGrepData) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%d matches in %d scripts searched (%d bytes)", len(d.Matches), d.Scripts, d.Bytes))
	if len(d.CutScripts) > 0 {
		parts = append(parts, fmt.Sprintf("more matches than --max-per-script in: %s", strings.Join(d.CutScripts, ", ")))
	}
	if d.NextCursor != "" {
		parts = append(parts, fmt.Sprintf("more remain: repeat with --cursor '%s'", strings.ReplaceAll(d.NextCursor, "'", `'\''`)))
	}
	return strings.Join(parts, "; ")
}
