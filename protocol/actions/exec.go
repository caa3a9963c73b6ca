package actions

import "encoding/json"

// Exec is the exec action's name.
const Exec = "exec"

// ExecRequest runs Luau in the DataModel.
type ExecRequest struct {
	Script string `json:"script"`
	// ChunkName names the chunk in errors and tracebacks; empty leaves the
	// plugin's "Script".
	ChunkName string `json:"chunkName,omitempty"`
	// History false asks the edit DataModel to leave no undo step (the test
	// runner's temporary folder); nil leaves the default, true.
	History *bool `json:"history,omitempty"`
}

// LogLine is one Output line: an exec's progress payload, an entry of its
// Logs, a logs entry, and a log event's payload.
type LogLine struct {
	Level     string  `json:"level"` // Print, Info, Warning or Error
	Body      string  `json:"body"`
	Timestamp float64 `json:"timestamp,omitempty"`
	Seq       int64   `json:"seq,omitempty"`
	// Truncated marks a line the plugin cut to its 64 KiB bound; Bytes is
	// then the length of the whole line.
	Truncated bool `json:"truncated,omitempty"`
	Bytes     int  `json:"bytes,omitempty"`
}

// ExecResult is an exec's answer. A script that fails to compile or raises
// is a result (Success false, Error, Traceback), not a protocol error.
type ExecResult struct {
	Success      bool              `json:"success"`
	Error        string            `json:"error,omitempty"`
	Logs         []LogLine         `json:"logs"`
	ReturnValues []json.RawMessage `json:"returnValues,omitempty"`
	// DroppedLogs counts output lines past the per-exec cap (10,000 lines
	// or 4 MiB) that were not captured.
	DroppedLogs int    `json:"droppedLogs,omitempty"`
	Traceback   string `json:"traceback,omitempty"`
	// Undoable (edit DataModel only): whether the exec is one undo step;
	// absent when it changed nothing.
	Undoable *bool `json:"undoable,omitempty"`
}
