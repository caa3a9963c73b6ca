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
	return newAppWith(commands.All, stdio, notFound)
}

// newAppWith builds the command line over the registry defs (tests pass a
// registry of their own).
func newAppWith(defs []*commands.Definition, stdio IO, notFound *error) *cli.App {
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
	app.Commands = registryCommands(defs, stdio)
	app.Commands = append(app.Commands, terminalCommand(stdio), mcpCommand(stdio), completionCommand(stdio, func() *cli.App { return newApp(stdio, new(error)) }))
	return app
}

// visibleCommands names the commands help lists.
func visibleCommands(app *cli.App) []string {
	var names []string
	for _, cmd := range app.VisibleCommands() {
		names = append(names, cmd.Name)
	}
	return names
}
