package commands

import (
	"context"
	"io"
	"strings"

	"github.com/studio-bridge/studio-bridge/bridge"
)

// Spec is a command as its author writes it: the Definition's metadata and
// its functions, typed by the command's argument struct A and its result
// data D. Define turns it into the registry's Definition, so no surface
// and no Run asserts a type.
type Spec[A, D any] struct {
	// Definition holds the metadata (Name, Summary, NeedsSession, …); its
	// Args and Output are set by Define from A and D.
	Definition
	// Run executes the command with its filled and validated arguments.
	Run func(ctx context.Context, env *Env, args *A) (*Result, error)
	// Retarget, when set, adjusts the session target before Invoke
	// resolves it (exec --play resolves the window's edit session, to
	// start a test there, and keeps the context asked for in args).
	Retarget func(args *A, t bridge.Target) (bridge.Target, error)
	// PrepareCLI, when set, completes argument handling on the surfaces
	// people type on (reading a script file or stdin, choosing a default
	// output file) before Invoke.
	PrepareCLI func(args *A, stdin io.Reader) error
	// Standalone, when set and true for the given arguments, runs the
	// command without the bridge network or a session (exec --cloud).
	Standalone func(args *A) bool
	// Check, when set, is the command's own validation beyond its tags
	// (arguments that need each other): Invoke runs it with Validate,
	// before any session is resolved.
	Check func(args *A) error
}

// NoArgs is the argument struct of a command that takes none.
type NoArgs struct{}

// NoData is the result data type of a command whose Result carries none
// for programs (serve): it gets no output schema.
type NoData struct{}

// Define builds a registry Definition from a typed Spec. The one type
// assertion of an adapter's any back to *A lives here, behind Invoke.
func Define[A, D any](s Spec[A, D]) *Definition {
	d := s.Definition
	d.Args = new(A)
	if _, none := any(*new(D)).(NoData); !none {
		d.Output = *new(D)
	}
	run := s.Run
	d.run = func(ctx context.Context, env *Env, a any) (*Result, error) { return run(ctx, env, a.(*A)) }
	if f := s.Retarget; f != nil {
		d.retarget = func(a any, t bridge.Target) (bridge.Target, error) { return f(a.(*A), t) }
	}
	if f := s.PrepareCLI; f != nil {
		d.prepare = func(a any, stdin io.Reader) error { return f(a.(*A), stdin) }
	}
	if f := s.Check; f != nil {
		d.check = func(a any) error { return f(a.(*A)) }
	}
	if f := s.Standalone; f != nil {
		d.standalone = func(a any) bool { return f(a.(*A)) }
	}
	return &d
}

// Prepare completes argument handling for the surfaces people type on (a
// script file or standard input read in, a default file name chosen): the
// CLI and the terminal call it after binding, before Invoke.
func (d *Definition) Prepare(args any, stdin io.Reader) error {
	if d.prepare == nil {
		return nil
	}
	return d.prepare(args, stdin)
}

// IsStandalone reports whether the command runs without the bridge network
// or a session for these arguments (exec --cloud).
func (d *Definition) IsStandalone(args any) bool {
	return d.standalone != nil && d.standalone(args)
}

// Path is the command's full name: "exec", or a group's leaf such as
// "script read". Help, usage lines and Lookup use it.
func (d *Definition) Path() string {
	if d.Group == nil {
		return d.Name
	}
	return d.Group.Name + " " + d.Name
}

// Group is a parent command whose leaves are Definitions (script read,
// script grep, script edit). A leaf names its group in Definition.Group;
// the group itself runs nothing. On the CLI a group is a command with
// subcommands, in the terminal a dot-command with a first word, and on MCP
// each leaf is a tool of its own (studio_script_read).
type Group struct {
	Name    string
	Summary string
}

// Leaves lists the definitions of defs that belong to g, in order.
func (g *Group) Leaves(defs []*Definition) []*Definition {
	var out []*Definition
	for _, d := range defs {
		if d.Group == g {
			out = append(out, d)
		}
	}
	return out
}

// LookupIn finds a command in defs by its path ("exec", "script read").
func LookupIn(defs []*Definition, path string) *Definition {
	path = strings.Join(strings.Fields(path), " ")
	for _, d := range defs {
		if d.Path() == path {
			return d
		}
	}
	return nil
}

// GroupIn finds a group of defs by name.
func GroupIn(defs []*Definition, name string) *Group {
	for _, d := range defs {
		if d.Group != nil && d.Group.Name == name {
			return d.Group
		}
	}
	return nil
}
