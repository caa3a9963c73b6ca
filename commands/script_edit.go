package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// ScriptEditArgs are script edit's arguments: one edit of PATH, or a batch
// (--batch FILE.json on the CLI; edits and expectHashes in MCP).
type ScriptEditArgs struct {
	Path       string `json:"path" pos:"true" usage:"the script's path (not with --batch)" desc:"Path of the script to edit (or to create, with create). Not with edits."`
	Find       string `json:"find" usage:"text to replace: must occur exactly once (unless --all)" desc:"Exact text to replace (whitespace included). It must occur exactly once unless all is set; otherwise the edit fails with NO_MATCH or AMBIGUOUS_MATCH naming the candidate lines."`
	Replace    string `json:"replace" usage:"the new text for --find" desc:"The new text for find. An empty replace deletes the found text only with delete: true."`
	Delete     bool   `json:"delete" usage:"with --find and no --replace: delete the found text" desc:"With find and an empty replace: delete the found text (guards against a forgotten replace). Default: false."`
	All        bool   `json:"all" usage:"replace every occurrence of --find" desc:"Replace every occurrence of find. Default: false."`
	Lines      string `json:"lines" usage:"replace these lines (A-B, A- or A) with --with" desc:"Replace these lines ('A-B', 'A-' or 'A'; lines count from 1; one past the last line appends) with the text of with."`
	With       string `json:"with" usage:"FILE or - (stdin): the new text of --lines" desc:"The new text of lines (one trailing newline is dropped)."`
	Source     string `json:"source" usage:"FILE or - (stdin): the whole new text (or a new script's, with --create)" desc:"The whole new text of the script (with create: the new script's text)."`
	ExpectHash string `json:"expectHash" usage:"refuse with SCRIPT_CHANGED unless the text still has this hash (from script read)" desc:"The hash studio_script_read returned: the edit is refused with SCRIPT_CHANGED, and nothing written, if the script's text changed since. Strongly recommended."`
	Create     bool   `json:"create" usage:"create a new script at PATH (with --class)" desc:"Create a new script at path (its parent must exist), with className and source. Default: false."`
	ClassName  string `json:"className" flag:"class" enum:"Script,LocalScript,ModuleScript" usage:"with --create: the new script's class" desc:"With create: Script, LocalScript or ModuleScript."`
	RunContext string `json:"runContext" enum:"Server,Client,Legacy" usage:"with --create --class Script: its RunContext" desc:"With create and className Script: its RunContext (Server, Client or Legacy)."`
	InStudio   bool   `json:"inStudio" usage:"edit a script that Rojo syncs from a file in Studio anyway (Rojo overwrites it at its next sync)" desc:"Edit a script that the project's Rojo source map syncs from a file, in Studio anyway. Without it such an edit is refused with SCRIPT_MANAGED naming the file and line to edit instead (Rojo overwrites Studio's copy at its next sync). Default: false."`
	Batch      string `json:"batch" mcp:"-" usage:"FILE.json or -: several edits of several scripts, all or nothing ({\"edits\": […], \"expectHashes\": {…}})"`

	Edits        []actions.ScriptEditOp `json:"edits" cli:"-" usage:"a batch" desc:"Several edits of several scripts, applied all or nothing (instead of path and the single-edit fields). Each is {path, find, replace, all?} or {path, lines, with} or {path, source} or {path, create: true, className, runContext?, source}. Every edit is computed first; if a write fails, the scripts already written are put back."`
	ExpectHashes map[string]string      `json:"expectHashes" cli:"-" usage:"with edits: path → hash" desc:"With edits: the hash each script must still have (path → hash from studio_script_read); a changed script fails the whole batch with SCRIPT_CHANGED."`
}

// ScriptEditData is script edit's output.
type ScriptEditData = actions.ScriptEditResult

// ScriptEdit changes scripts through Studio's compare-and-swap.
var ScriptEdit = Define(Spec[ScriptEditArgs, ScriptEditData]{
	Definition: Definition{
		Name:    "edit",
		Group:   ScriptGroup,
		Title:   "Edit scripts",
		Summary: "Edit a script: find and replace, replace lines, set the whole text, create one, or a batch of edits all or nothing.",
		Description: "Edit scripts in the edit DataModel, the way Studio's own tools write them (ScriptEditorService:UpdateSourceAsync): unsaved text in an open editor is kept, and scripts over 200,000 characters work. " +
			"One edit: path with find+replace (find must occur exactly once unless all), lines+with, source (the whole text), or create+className(+runContext)+source. " +
			"Several: edits (and expectHashes), all or nothing. Pass expectHash from studio_script_read so a script changed meanwhile is refused (SCRIPT_CHANGED) instead of overwritten. " +
			"Errors say what to do: NO_MATCH, AMBIGUOUS_MATCH (with the candidate lines), SCRIPT_CHANGED, SCRIPT_LOCKED, NOT_A_SCRIPT, INSTANCE_NOT_FOUND. Returns each script's new hash and a short diff.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		Mutates:        true,
		MCP:            true,
		Timeout:        30 * time.Second,
		Noun:           "Script edit",
	},
	PrepareCLI: prepareScriptEdit,
	Run:        runScriptEdit,
})

// prepareScriptEdit reads the files the CLI names: --with, --source and
// --batch take a file or - (standard input, for one of them).
func prepareScriptEdit(args *ScriptEditArgs, stdin io.Reader) error {
	stdinUsed := ""
	read := func(flag, name string) (string, error) {
		if name == "-" {
			if stdinUsed != "" {
				return "", UsageError{fmt.Errorf("script edit: %s and %s cannot both read standard input", stdinUsed, flag)}
			}
			stdinUsed = flag
			data, err := io.ReadAll(io.LimitReader(stdin, MaxScriptBytes+1))
			if err != nil {
				return "", fmt.Errorf("script edit: reading standard input for %s: %w", flag, err)
			}
			if len(data) > MaxScriptBytes {
				return "", UsageError{fmt.Errorf("script edit: standard input for %s is over %d MiB", flag, MaxScriptBytes>>20)}
			}
			return string(data), nil
		}
		info, err := os.Stat(name)
		if err != nil {
			return "", UsageError{fmt.Errorf("script edit: %s %s: %w", flag, name, err)}
		}
		if info.Size() > MaxScriptBytes {
			return "", UsageError{fmt.Errorf("script edit: %s %s is over %d MiB", flag, name, MaxScriptBytes>>20)}
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return "", UsageError{fmt.Errorf("script edit: %s %s: %w", flag, name, err)}
		}
		return string(data), nil
	}
	var err error
	if args.With != "" {
		if args.With, err = read("--with", args.With); err != nil {
			return err
		}
	}
	if args.Source != "" {
		if args.Source, err = read("--source", args.Source); err != nil {
			return err
		}
	}
	if args.Batch != "" {
		text, err := read("--batch", args.Batch)
		if err != nil {
			return err
		}
		var req actions.ScriptEditRequest
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return UsageError{fmt.Errorf("script edit: --batch %s is not a batch ({\"edits\": [{\"path\", \"find\", \"replace\"}, …], \"expectHashes\": {path: hash}}): %w", args.Batch, err)}
		}
		args.Edits, args.ExpectHashes = req.Edits, req.ExpectHashes
		args.Batch = ""
	}
	return nil
}

// request turns the arguments into the scriptEdit payload, or a usage error.
func (args *ScriptEditArgs) request() (actions.ScriptEditRequest, error) {
	single := args.Path != "" || args.Find != "" || args.Replace != "" || args.Lines != "" || args.With != "" ||
		args.Source != "" || args.Create || args.ExpectHash != "" || args.All || args.Delete
	if len(args.Edits) > 0 {
		if single {
			return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: give a batch (--batch / edits) or one edit of a path, not both")}
		}
		for i, e := range args.Edits {
			if e.Path == "" {
				return actions.ScriptEditRequest{}, UsageError{fmt.Errorf("script edit: edit %d of the batch has no path", i+1)}
			}
		}
		return actions.ScriptEditRequest{Edits: args.Edits, ExpectHashes: args.ExpectHashes}, nil
	}
	if args.Path == "" {
		return actions.ScriptEditRequest{}, UsageError{errors.New("script edit needs the script's path (or --batch FILE.json); usage: studio-bridge script edit PATH [--find OLD --replace NEW | --lines A-B --with FILE | --source FILE | --create --class C --source FILE]")}
	}
	op := actions.ScriptEditOp{Path: args.Path, All: args.All}
	kinds := 0
	if args.Find != "" {
		kinds++
		if args.Replace == "" && !args.Delete {
			return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --find needs --replace NEW (or --delete to remove the found text)")}
		}
		op.Find, op.Replace = &args.Find, &args.Replace
	} else if args.Replace != "" || args.All || args.Delete {
		return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --replace, --all and --delete go with --find OLD")}
	}
	if args.Lines != "" {
		kinds++
		w := args.With
		op.Lines, op.With = args.Lines, &w
	} else if args.With != "" {
		return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --with goes with --lines A-B")}
	}
	if args.Create {
		if args.ClassName == "" {
			return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --create needs --class Script|LocalScript|ModuleScript")}
		}
		if args.RunContext != "" && args.ClassName != "Script" {
			return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --run-context applies to --class Script only")}
		}
		if kinds > 0 {
			return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --create takes the new script's text as --source, not --find or --lines")}
		}
		op.Create, op.ClassName, op.RunContext = true, args.ClassName, args.RunContext
		src := args.Source
		op.Source = &src
		kinds++
	} else {
		if args.ClassName != "" || args.RunContext != "" {
			return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: --class and --run-context go with --create")}
		}
		if args.Source != "" {
			kinds++
			op.Source = &args.Source
		}
	}
	if kinds != 1 {
		return actions.ScriptEditRequest{}, UsageError{errors.New("script edit: give exactly one of --find OLD --replace NEW, --lines A-B --with FILE, --source FILE, or --create --class C")}
	}
	req := actions.ScriptEditRequest{Edits: []actions.ScriptEditOp{op}}
	if args.ExpectHash != "" {
		req.ExpectHashes = map[string]string{args.Path: args.ExpectHash}
	}
	return req, nil
}

func runScriptEdit(ctx context.Context, env *Env, args *ScriptEditArgs) (*Result, error) {
	req, err := args.request()
	if err != nil {
		return nil, err
	}
	m := SourceMap()
	warning := ""
	if args.InStudio {
		warning = managedWarning(m, req)
	} else if err := managedError(m, req); err != nil {
		return nil, err
	}
	var data ScriptEditData
	if err := action(ctx, env, actions.ScriptEdit, req, &data, nil); err != nil {
		return nil, notInStudio(m, err, editPaths(req)...)
	}
	if data.Scripts == nil {
		data.Scripts = []actions.ScriptEdited{}
	}
	note := scriptEditNote(data)
	if warning != "" {
		note = warning + "\n" + note
	}
	return &Result{Data: data, Render: func() string { return renderScriptEdit(data) }, Note: note}, nil
}

// renderScriptEdit prints each script's diff.
func renderScriptEdit(d ScriptEditData) string {
	var b bytes.Buffer
	for _, s := range d.Scripts {
		b.WriteString(s.Diff)
	}
	return b.String()
}

func scriptEditNote(d ScriptEditData) string {
	var parts []string
	for _, s := range d.Scripts {
		what := "edited"
		switch {
		case s.Created:
			what = "created"
		case !s.Changed:
			what = "unchanged"
		}
		where := ""
		if s.FromEditor {
			where = " (in its open editor; Ctrl+Z there undoes it)"
		}
		parts = append(parts, fmt.Sprintf("%s %s%s: %d lines, hash %s", what, s.Path, where, s.LineCount, s.Hash))
	}
	return strings.Join(parts, "\n")
}
