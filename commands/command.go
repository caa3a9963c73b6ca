package commands

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// Definition is one command, whatever surface runs it.
type Definition struct {
	// Name is the CLI subcommand and, prefixed with "studio_", the MCP tool;
	// for a group's leaf, the subcommand under the group (see Path).
	Name string
	// Group, when set, makes the command a leaf of a parent command
	// (script read): see Group.
	Group *Group
	// Summary is one short line for help text.
	Summary string
	// Description is what agents read (the MCP tool description); it
	// defaults to Summary.
	Description string
	// Help is what `--help` says beyond Summary and the flags: how the
	// arguments are read (see CLIHelp, which adds the default timeout).
	Help string
	// Args is a pointer to the zero value of the command's argument struct
	// (set by Define).
	Args any
	// Output is a zero value of the command's Result.Data type; the MCP
	// output schema is derived from it (set by Define).
	Output any
	// NeedsSession: the adapter resolves a session (adding --session and
	// --context) before Run.
	NeedsSession bool
	// DefaultContext is used in Play mode when the user names no context.
	DefaultContext protocol.Context
	// Mutates marks commands that change Studio state.
	Mutates bool
	// MCP exposes the command as an MCP tool.
	MCP bool
	// Title is the MCP tool's human-readable title.
	Title string
	// LargeOutput marks results that can be large (an exec's output, logs,
	// a query's tree, a test run's failures): MCP caps them (maxOutputBytes)
	// so one answer cannot flood an agent's context; a result that is a
	// Fitter is asked to fit first. The CLI prints everything.
	LargeOutput bool
	// Timeout is the command's default action timeout.
	Timeout time.Duration
	// MaxTimeout, when set, lets a call choose its own timeout up to this
	// bound (MCP's timeout argument, in seconds); the CLI's --timeout is
	// global and unbounded.
	MaxTimeout time.Duration
	// Noun names the command's action in timeout messages ("State query
	// timed out after 5 seconds.").
	Noun string
	// LongRunning commands (serve) keep the process on the bridge until
	// their context ends.
	LongRunning bool
	// Local commands run without joining the bridge network (version,
	// install-plugin).
	Local bool
	// Hidden keeps the command out of help listings.
	Hidden bool
	// DataLines marks commands whose streamed lines are their output
	// (followed logs): the CLI prints every level on stdout. Other streamed
	// lines (an exec's prints) put warnings and errors on stderr.
	DataLines bool

	// The typed functions of the command's Spec, wrapped by Define; Invoke
	// is the only caller of run and retarget.
	run        func(ctx context.Context, env *Env, args any) (*Result, error)
	retarget   func(args any, t bridge.Target) (bridge.Target, error)
	prepare    func(args any, stdin io.Reader) error
	standalone func(args any) bool
	check      func(args any) error
}

// Env is what a command runs against.
type Env struct {
	// Command is the definition being run.
	Command *Definition
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
	// Status, when set, shows what a long wait is waiting for ("capturing…");
	// a terminal shows it on one transient line, others ignore it.
	Status func(string)
	// Aligned is set when people read the output on a terminal: tables get
	// aligned columns there, and tab-separated ones anywhere else.
	Aligned bool
	// Output receives streamed lines (exec output, followed logs) as they
	// arrive, in order; each surface shows them its own way. Nil drops them.
	Output func(Line)
	// Port is the bridge port this process was run for (the global --port);
	// zero means protocol.DefaultPort. install-plugin writes it into the
	// plugin.
	Port int
	// Network is the port, remote and config directory the surface uses
	// (doctor reports them); Join, when set, joins the bridge for a Local
	// command that decides itself whether to (doctor, after looking at the
	// port).
	Network Network
	Join    func() (bridge.Conn, error)
	// Auth is where the user's tokens are (the config directory and the
	// token variables): the surface resolves it (the CLI from the
	// environment, authtoken.FromEnv), so a command never reads the
	// environment for it. token, install-plugin and doctor use it.
	Auth authtoken.Settings
	// Project, when set, resolves the project root (MCP asks its client's
	// roots/list); nil means project.Root: STUDIO_BRIDGE_PROJECT, else the
	// working directory.
	Project func() (string, error)
	// Confine is set by surfaces whose caller is not the user at a shell
	// (MCP, the terminal): files a command reads must be under the project
	// root.
	Confine bool
}

// Fitter is a result that knows how to cut its own JSON to a byte budget
// (test's report cuts failure messages and keeps every test). The MCP output
// cap asks it first and cuts generically only what still does not fit.
type Fitter interface {
	// Fit returns the result, cut so that its JSON is at most budget bytes
	// where it can be; the receiver is left unchanged.
	Fit(budget int) any
}

// Line is one streamed output line.
type Line struct {
	Level     string  `json:"level"` // Print, Info, Warning or Error
	Body      string  `json:"body"`
	Timestamp float64 `json:"timestamp,omitempty"`
	Seq       int64   `json:"seq,omitempty"`
	// Truncated marks a line the plugin cut to its 64 KiB bound; Bytes is
	// then the length of the whole line.
	Truncated bool `json:"truncated,omitempty"`
	Bytes     int  `json:"bytes,omitempty"`
	// Locations lists the script locations in Body (Located), with their
	// files where the source map knows them.
	Locations []sourcemap.Location `json:"locations,omitempty"`
}

func (env *Env) status(s string) {
	if env.Status != nil {
		env.Status(s)
	}
}

// SlowStatus is how long a wait goes unremarked before StatusAfter shows
// its status line: most waits end sooner, and a flash of text is noise.
const SlowStatus = 300 * time.Millisecond

// StatusAfter shows s as the status line if what follows takes longer than
// SlowStatus (a fresh host giving plugins time to find it, say); call done
// when it is over.
func (env *Env) StatusAfter(s string) (done func()) {
	if env.Status == nil {
		return func() {}
	}
	var mu sync.Mutex
	over, shown := false, false
	t := time.AfterFunc(SlowStatus, func() {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			env.Status(s)
			shown = true
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		over = true
		if shown {
			env.Status("")
		}
	}
}

func (env *Env) emit(l Line) {
	if env.Output != nil {
		env.Output(l)
	}
}

// Result is a command's outcome: Data for programs (--json, MCP structured
// content) and Text for people.
type Result struct {
	Data any
	Text string
	// Render builds Text when it is costly and only people read it (a
	// thousand-row table under --json is wasted work).
	Render func() string
	// Image is a PNG (screenshot): MCP returns it as an image block.
	Image []byte
	// Unavailable, when set, says there was nothing to act on (no sessions):
	// the CLI prints it on stderr and succeeds, MCP reports it as an error.
	Unavailable string
	// Note, when set, is a remark for people (the CLI and the terminal print
	// it on stderr; --json and MCP leave it out): "no log lines yet".
	Note string
	// Failure, when set, reports a failure in Studio (a script error): a
	// normal result for MCP, a message on stderr and exit code 1 for the CLI.
	Failure string
}

// People returns the text for people.
func (r *Result) People() string {
	if r.Text == "" && r.Render != nil {
		return r.Render()
	}
	return r.Text
}

// All is the registry, in help order.
var All = []*Definition{
	Sessions,
	State,
	Screenshot,
	Logs,
	Query,
	Test,
	Exec,
	Play,
	Serve,
	InstallPlugin,
	UninstallPlugin,
	Launch,
	VersionCommand,
	Token,
	Doctor,
	Call,
	ScriptRead,
	ScriptGrep,
	ScriptEdit,
}

// Lookup finds a command of All by its path ("exec", "script read").
func Lookup(path string) *Definition { return LookupIn(All, path) }
