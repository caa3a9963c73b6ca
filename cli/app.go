package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/commands"
)

// IO is the process's streams, injected so tests can drive the CLI.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// Run runs the command line args (args[0] is the program) and returns
// what went wrong, for the caller to report and map to an exit code: a
// mistake on the command line is a commands.UsageError, a failure that
// Studio reported (a script error) a Failure; other errors come from the
// bridge, the protocol or the commands as they are.
func Run(ctx context.Context, args []string, stdio IO) error {
	var notFound error
	app := newApp(stdio, &notFound)
	if completeValue(ctx, app, args, stdio.Out) {
		return nil
	}
	err := app.RunContext(ctx, interspersed(app, args))
	if err == nil {
		err = notFound
	}
	var ue commands.UsageError
	if err != nil && !errors.As(err, &ue) && strings.Contains(err.Error(), "flag provided but not defined") {
		// A flag error urfave/cli reports without OnUsageError.
		err = commands.UsageError{Err: err}
	}
	return err
}

// Failure is a failure Studio reported, such as a script error: the
// command ran, and what it ran failed.
type Failure string

func (f Failure) Error() string { return string(f) }

func init() {
	// --version prints what the version command prints.
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprint(c.App.Writer, commands.VersionLine()) }
}

// newApp builds the command line: a command per registry definition, then
// the surfaces that are not registry commands. An unknown command is left
// in *notFound (urfave/cli reports it without an error).
func newApp(stdio IO, notFound *error) *cli.App {
	app := &cli.App{
		Name:                 "studio-bridge",
		Usage:                "drive Roblox Studio from the terminal, CI and AI agents",
		Version:              commands.Version,
		Reader:               stdio.In,
		Writer:               stdio.Out,
		ErrWriter:            stdio.Err,
		EnableBashCompletion: true,
		Flags:                globalFlags(),
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         usageError,
		CommandNotFound: func(c *cli.Context, name string) {
			*notFound = commands.UsageError{Err: fmt.Errorf("unknown command %q\nusage: studio-bridge [global flags] <command> [arguments]; commands: %s; run `studio-bridge --help` for more",
				name, strings.Join(visibleCommands(c.App), ", "))}
		},
	}
	groups := map[string]*cli.Command{}
	for _, d := range commands.All {
		if d.Group == "" {
			app.Commands = append(app.Commands, cliCommand(d, stdio))
			continue
		}
		// a group's leaves are subcommands of one command (script read)
		parent := groups[d.Group]
		if parent == nil {
			parent = &cli.Command{Name: d.Group, Usage: d.Group + " " + "commands: see their help", OnUsageError: usageError}
			groups[d.Group] = parent
			app.Commands = append(app.Commands, parent)
		}
		leaf := cliCommand(d, stdio)
		leaf.Name = d.Leaf()
		parent.Subcommands = append(parent.Subcommands, leaf)
		parent.Usage = groupUsage(parent)
	}
	app.Commands = append(app.Commands, terminalCommand(stdio), mcpCommand(stdio), completionCommand(stdio, func() *cli.App { return newApp(stdio, new(error)) }))
	return app
}

// groupUsage lists a group's subcommands for help: "read, grep or edit a script".
func groupUsage(parent *cli.Command) string {
	var names []string
	for _, c := range parent.Subcommands {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ") + " (studio-bridge " + parent.Name + " <subcommand> --help)"
}

// visibleCommands names the commands help lists.
func visibleCommands(app *cli.App) []string {
	var names []string
	for _, cmd := range app.VisibleCommands() {
		names = append(names, cmd.Name)
	}
	return names
}
