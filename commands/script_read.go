package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// ScriptReadArgs are script read's arguments.
type ScriptReadArgs struct {
	Path  string `json:"path" pos:"true" required:"true" usage:"the script's path, e.g. ServerScriptService.Main" desc:"Dot-separated path of a Script, LocalScript or ModuleScript, e.g. 'ServerScriptService.Main' ('game.' optional)."`
	Lines string `json:"lines" usage:"only these lines: A-B, A- (to the end) or A" desc:"Only these lines: 'A-B', 'A-' (to the end) or 'A' (lines count from 1). Default: the whole script. A cut answer names the range to ask for next in nextLines."`
	scriptWhere
}

// scriptWhere is where a script command may run: the edit DataModel,
// unless the user named a playtest's context explicitly (for a read or a
// grep); Retarget records whether they did.
type scriptWhere struct {
	contextDefaulted bool
}

// retarget is the Retarget of script read and grep: it notes whether the
// caller named a context.
func (w *scriptWhere) retarget(t bridge.Target) (bridge.Target, error) {
	w.contextDefaulted = t.Context == ""
	return t, nil
}

// ScriptGroup is the group of the script commands: script read, script
// grep, script edit (MCP: studio_script_read, …).
var ScriptGroup = &Group{Name: "script", Summary: "Read, search and edit scripts as the user sees them (the editor's text)."}

// allowPlay: a playtest's DataModel may answer a read or a grep only when
// it was asked for by name (the terminal, attached to one, always has).
func (w scriptWhere) allowPlay() bool { return !w.contextDefaulted }

// ScriptReadData is script read's output: the plugin's answer, with Source
// for the whole text or FirstLine and Lines for a range, cut to the MCP
// output budget by Fit (NextLines then names the range to ask for next).
type ScriptReadData struct {
	actions.ScriptReadResult
	NextLines string `json:"nextLines,omitempty"`
	// File is the file on disk the project's Rojo source map syncs the
	// script from (edit that, not Studio's copy).
	File string `json:"file,omitempty"`
}

// FitDescription is the MCP maxOutputBytes description of a read.
func (ScriptReadData) FitDescription() string {
	return "Cap the result at this many bytes of JSON (default 65536): whole lines are dropped from the end, and the result then carries truncated: true, totalBytes and nextLines, the range to read next."
}

// Fit keeps the first lines that fit in budget bytes of JSON and names the
// rest in NextLines.
func (d ScriptReadData) Fit(budget int) any {
	out := d
	lines := d.Lines
	first := d.FirstLine
	if d.Source != nil {
		lines = strings.Split(*d.Source, "\n")
		first = 1
		out.Source = nil
	}
	if first == 0 {
		first = 1
	}
	head, _ := json.Marshal(ScriptReadData{ScriptReadResult: actions.ScriptReadResult{Path: d.Path, ClassName: d.ClassName, Hash: d.Hash, LineCount: d.LineCount, FromEditor: d.FromEditor, FirstLine: first}, NextLines: fmt.Sprintf("%d-%d", d.LineCount, d.LineCount)})
	used := len(head) + len(`,"lines":[]`)
	kept := 0
	for _, l := range lines {
		b, _ := json.Marshal(l)
		if kept > 0 && used+len(b)+1 > budget {
			break
		}
		used += len(b) + 1
		kept++
	}
	out.FirstLine = first
	out.Lines = lines[:kept]
	if kept < len(lines) {
		out.NextLines = fmt.Sprintf("%d-%d", first+kept, first+len(lines)-1)
	}
	return out
}

// ScriptRead prints a script as the user sees it.
var ScriptRead = Define(Spec[ScriptReadArgs, ScriptReadData]{
	Definition: Definition{
		Name:    "read",
		Group:   ScriptGroup,
		Title:   "Read a script",
		Summary: "Print a script as the user sees it (unsaved editor text included), with line numbers.",
		Description: "Read a script's text exactly as the user sees it in Studio: the open editor's text, unsaved work included (fromEditor), else its source. " +
			"Returns hash, which identifies the whole text: pass it to studio_script_edit as expectHash so the edit is refused (SCRIPT_CHANGED) if the script changed meanwhile. " +
			"Use lines ('A-B') for part of a long script; a cut answer names the range to read next (nextLines). Works in the edit DataModel; a playtest's server or client only when named with context.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		MCP:            true,
		LargeOutput:    true,
		Timeout:        15 * time.Second,
		Noun:           "Script read",
	},
	Retarget: func(args *ScriptReadArgs, t bridge.Target) (bridge.Target, error) { return args.retarget(t) },
	Run:      runScriptRead,
})

func runScriptRead(ctx context.Context, env *Env, args *ScriptReadArgs) (*Result, error) {
	req := actions.ScriptReadRequest{Path: args.Path, Lines: args.Lines, AllowPlay: args.allowPlay()}
	var data ScriptReadData
	if err := action(ctx, env, actions.ScriptRead, req, &data.ScriptReadResult, nil); err != nil {
		return nil, notInStudio(SourceMap(), err, args.Path)
	}
	data.File = syncedFile(SourceMap(), data.Path)
	return &Result{Data: data, Render: func() string { return renderScriptRead(data) }, Note: scriptReadNote(data)}, nil
}

// renderScriptRead numbers the lines, right-aligned, as an editor does.
func renderScriptRead(d ScriptReadData) string {
	lines, first := d.Lines, d.FirstLine
	if d.Source != nil {
		lines, first = strings.Split(*d.Source, "\n"), 1
		if len(lines) > 1 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1] // a final newline ends the last line
		}
	}
	width := len(fmt.Sprint(d.LineCount))
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%*d  %s\n", width, first+i, l)
	}
	return b.String()
}

func scriptReadNote(d ScriptReadData) string {
	from := "its source"
	if d.FromEditor {
		from = "the open editor, unsaved text included"
	}
	note := fmt.Sprintf("%s (%s): %d lines from %s; hash %s (script edit --expect-hash %s)", d.Path, d.ClassName, d.LineCount, from, d.Hash, d.Hash)
	if d.File != "" {
		note += fmt.Sprintf("\nsynced by Rojo from %s: edit that file, not Studio's copy", d.File)
	}
	return note
}
