package commands

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Definition is one command, whatever surface runs it.
type Definition struct {
	// Name is the CLI subcommand and, prefixed with "studio_", the MCP tool.
	Name string
	// Summary is one line for help text and tool descriptions.
	Summary string
	// Args is a pointer to the zero value of the command's argument struct.
	Args any
	// NeedsSession: the adapter resolves a session (adding --session and
	// --context) before Run.
	NeedsSession bool
	// DefaultContext is used in Play mode when the user names no context.
	DefaultContext protocol.Context
	// Mutates marks commands that change Studio state.
	Mutates bool
	// MCP exposes the command as an MCP tool.
	MCP bool
	// Timeout is the command's default action timeout.
	Timeout time.Duration
	// LongRunning commands (serve) keep the process on the bridge until
	// their context ends.
	LongRunning bool
	// Hidden keeps the command out of help listings.
	Hidden bool
	// Run executes the command. args is a pointer of the Args type, filled
	// in by the adapter.
	Run func(ctx context.Context, env *Env, args any) (*Result, error)
}

// Env is what a command runs against.
type Env struct {
	// Bridge is the bridge network (host or client; Run never asks which).
	Bridge bridge.Conn
	// Session is the resolved session for NeedsSession commands.
	Session protocol.SessionInfo
	// Stdout and Stderr are the streams for streamed output; final output
	// goes through the Result so each surface can render it.
	Stdout, Stderr io.Writer
	// Log receives diagnostics.
	Log *slog.Logger
	// Timeout is the action timeout: the user's override, else the
	// Definition's.
	Timeout time.Duration
}

// Result is a command's outcome: Data for programs (--json, MCP structured
// content) and Text for people.
type Result struct {
	Data any
	Text string
}

// All is the registry, in help order.
var All = []*Definition{
	Sessions,
	Serve,
	Call,
}

// Lookup finds a command by name.
func Lookup(name string) *Definition {
	for _, d := range All {
		if d.Name == name {
			return d
		}
	}
	return nil
}
