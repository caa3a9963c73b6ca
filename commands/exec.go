package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// ExecArgs are the exec command's arguments.
type ExecArgs struct {
	Script string `json:"script" pos:"true" required:"true" usage:"Luau code, a .luau file, or - for standard input" desc:"Luau code to execute in Studio."`
	// Cloud runs the script through Open Cloud Luau Execution instead of
	// Studio (exec_cloud.go), in the place CloudPlace names.
	Cloud bool `json:"cloud" mcp:"-" usage:"run in Roblox Open Cloud (Luau Execution) instead of Studio; needs ROBLOX_API_KEY"`
	CloudPlace
	Playtest
	// ChunkName names the script's chunk in Studio: the file's path when
	// Script came from a file (PrepareCLI), so its errors and traceback
	// frames read scripts/run.luau:2; "" leaves the plugin's "Script".
	ChunkName string `json:"-"`
}

func (a *ExecArgs) playChoice() playChoice { return a.choice("exec") }

// ExecData is the exec command's output.
type ExecData struct {
	Success      bool              `json:"success"`
	Error        string            `json:"error,omitempty"`
	Logs         []Line            `json:"logs"`
	ReturnValues []json.RawMessage `json:"returnValues,omitempty"`
	// DroppedLogs counts output lines past the plugin's per-exec cap
	// (10,000 lines or 4 MiB) that were not captured.
	DroppedLogs int `json:"droppedLogs,omitempty"`
	// Traceback, for a runtime error, lists the frames where it was raised
	// (debug.traceback, innermost first), the script's own outermost last.
	Traceback string `json:"traceback,omitempty"`
	// Locations lists every location in Error and Traceback, in order,
	// each with the file it comes from where one is known (source map, or
	// a chunk named after its file).
	Locations []sourcemap.Location `json:"locations,omitempty"`
	// Undoable (edit DataModel only) says whether the exec is one undo step
	// in Studio (one ChangeHistoryService recording): false when a recording
	// could not begin, or the request opted out with "history": false;
	// absent when the exec changed nothing (nothing to undo).
	Undoable *bool `json:"undoable,omitempty"`
}

// Exec runs Luau in a session.
var Exec = Define(Spec[ExecArgs, ExecData]{
	Definition: Definition{
		Name:    "exec",
		Title:   "Run Luau in Studio",
		Summary: "Run Luau in Studio: inline code, a file, or standard input.",
		Help: "<script> is one of: Luau code (exec 'print(1)'); a file, when a file of that name exists, or the name ends in .luau or .lua, " +
			"or is one word with a / or \\ or a leading dot (exec ./scripts/setup.luau); or - to read the script from standard input " +
			"(cat setup.luau | studio-bridge exec -). The script runs in the edit DataModel, or while a test runs in its server (--context edit|server|client chooses); " +
			"--play and --run start a test for it and stop it afterwards. Output streams as it is printed, return values follow on stdout; a script error exits 1.",
		Description:    "Execute a Luau script in a Roblox Studio session. Returns the script's success status, any error message, and captured log output. Use this to run code, modify the game state, or perform actions that other tools cannot express.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextServer,
		Mutates:        true,
		LargeOutput:    true,
		MCP:            true,
		Timeout:        120 * time.Second,
		MaxTimeout:     time.Hour,
		Noun:           "Script execution",
	},
	// With --cloud (or a --cloud flag, to refuse it at once) exec needs
	// no Studio: it runs in Open Cloud (exec_cloud.go).
	Standalone: func(args *ExecArgs) bool { return args.Cloud || args.cloudFlag() != "" },
	Retarget: func(args *ExecArgs, t bridge.Target) (bridge.Target, error) {
		return retargetTest(args.playChoice(), t)
	},
	PrepareCLI: func(args *ExecArgs, stdin io.Reader) error {
		src, err := LoadScript(args.Script, stdin)
		if err != nil {
			return UsageError{err}
		}
		if args.Script != "-" && looksLikeFile(args.Script) {
			args.ChunkName = ChunkName(args.Script)
		}
		args.Script = src
		return nil
	},
	Run: func(ctx context.Context, env *Env, args *ExecArgs) (*Result, error) {
		if strings.TrimSpace(args.Script) == "" {
			return nil, UsageError{errors.New("exec: the script is empty")}
		}
		if args.Cloud || args.cloudFlag() != "" {
			if args.Play || args.Run {
				return nil, UsageError{errors.New("exec: --play and --run need Studio; they do not combine with --cloud")}
			}
			return runCloud(ctx, env, args)
		}
		if args.Play || args.Run {
			return inTest(ctx, env, args.playChoice(), func(env *Env) (*Result, error) {
				data, err := execScript(ctx, env, args.Script, args.ChunkName)
				if err != nil {
					return nil, err
				}
				data.Logs = withoutMirrored(ctx, env, data.Logs) // --play --context client too
				return execResult(data), nil
			})
		}
		data, err := execScript(ctx, env, args.Script, args.ChunkName)
		if err != nil {
			return nil, err
		}
		data.Logs = withoutMirrored(ctx, env, data.Logs) // a client's copies of server lines (logs_mirror.go)
		return execResult(data), nil
	},
})

// execScript runs source in env.Session, streaming its output; chunkName
// ("" for the plugin's default) names its chunk.
func execScript(ctx context.Context, env *Env, source, chunkName string) (ExecData, error) {
	// a client's streamed lines go through the mirror rule (mirror_stream.go)
	show, stopMirror := mirrorStream(ctx, env, env.emit)
	defer stopMirror()
	var res actions.ExecResult
	err := action(ctx, env, actions.Exec, actions.ExecRequest{Script: source, ChunkName: chunkName}, &res, func(p json.RawMessage) {
		var l actions.LogLine
		if json.Unmarshal(p, &l) == nil {
			show(lineOf(l))
		}
	})
	return execData(res), err
}

// execData is the exec command's output for the plugin's answer; the
// locations are added when it is rendered (execResult).
func execData(r actions.ExecResult) ExecData {
	return ExecData{Success: r.Success, Error: r.Error, Logs: linesOf(r.Logs), ReturnValues: r.ReturnValues,
		DroppedLogs: r.DroppedLogs, Traceback: r.Traceback, Undoable: r.Undoable}
}

// lineOf is the output line of a line the plugin sent.
func lineOf(l actions.LogLine) Line {
	return Line{Level: l.Level, Body: l.Body, Timestamp: l.Timestamp, Seq: l.Seq, Truncated: l.Truncated, Bytes: l.Bytes}
}

// linesOf is lineOf for a list; nil stays nil.
func linesOf(ls []actions.LogLine) []Line {
	if ls == nil {
		return nil
	}
	out := make([]Line, len(ls))
	for i, l := range ls {
		out[i] = lineOf(l)
	}
	return out
}

// execResult renders an exec's answer.
func execResult(data ExecData) *Result {
	if data.Logs == nil {
		data.Logs = []Line{}
	}
	m := SourceMap()
	for i := range data.Logs {
		data.Logs[i] = data.Logs[i].Located()
	}
	if !data.Success {
		data.Locations = textLocations(m, data.Error, data.Traceback)
	}
	var b strings.Builder
	for _, v := range data.ReturnValues {
		var x any
		_ = json.Unmarshal(v, &x)
		b.WriteString(FormatValue(x) + "\n")
	}
	res := &Result{Data: data, Text: b.String()}
	if data.DroppedLogs > 0 {
		res.Note = fmt.Sprintf("warning: %d more output lines were not captured (an exec keeps at most 10,000 lines or 4 MiB of output); Studio's Output window has them all", data.DroppedLogs)
	}
	if data.Undoable != nil && !*data.Undoable {
		res.Note = joinNotes(res.Note, "warning: this exec is not one undo step in Studio (another ChangeHistoryService recording was open); Ctrl+Z will not undo it as a whole")
	}
	if !data.Success {
		res.Failure = execFailure(m, data)
	}
	return res
}

// joinNotes puts notes on separate lines.
func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
