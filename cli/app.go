package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
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
	for _, d := range commands.All {
		app.Commands = append(app.Commands, cliCommand(d, stdio))
	}
	app.Commands = append(app.Commands, terminalCommand(stdio), mcpCommand(stdio), completionCommand(stdio))
	return app
}

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "port", Value: protocol.DefaultPort, EnvVars: []string{"STUDIO_BRIDGE_PORT"}, Usage: "loopback port of the bridge host", Action: checkPort},
		&cli.StringFlag{Name: "remote", EnvVars: []string{"STUDIO_BRIDGE_REMOTE"}, Usage: "join the bridge host at `HOST:PORT` as a client only (devcontainers)", Action: checkRemote},
		&cli.DurationFlag{Name: "timeout", DefaultText: "the command's own", Usage: "override the command's action timeout", Action: checkTimeout},
		&cli.StringFlag{Name: "log-level", DefaultText: "warn; info for serve, error for mcp", EnvVars: []string{"STUDIO_BRIDGE_LOG_LEVEL"}, Usage: "diagnostics on stderr: debug, info, warn or error"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON document on stdout instead of text"},
		&cli.BoolFlag{Name: "keep-alive", Usage: "stay on the bridge network after the command until interrupted"},
	}
}

// checkPort refuses a port no listener can have; 0 would silently mean
// "any port", which neither the plugin nor other processes could find.
func checkPort(_ *cli.Context, port int) error {
	if port < 1 || port > 65535 {
		return commands.UsageError{Err: fmt.Errorf("--port / STUDIO_BRIDGE_PORT: %d is not a TCP port; use 1–65535 (the default is %d)", port, protocol.DefaultPort)}
	}
	return nil
}

// checkRemote refuses a --remote that cannot be dialled as HOST:PORT.
func checkRemote(_ *cli.Context, remote string) error {
	host, port, err := net.SplitHostPort(remote)
	if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
		return commands.UsageError{Err: fmt.Errorf("--remote / STUDIO_BRIDGE_REMOTE: %q is not HOST:PORT (e.g. host.docker.internal:%d)", remote, protocol.DefaultPort)}
	}
	return nil
}

// checkTimeout refuses a timeout that would end every action at once.
func checkTimeout(_ *cli.Context, d time.Duration) error {
	if d <= 0 {
		return commands.UsageError{Err: fmt.Errorf("--timeout: %s is not a timeout; give a positive duration such as 30s or 2m", d)}
	}
	return nil
}

// joinBridge puts this process on the bridge network, as host or client,
// with the port and remote the global flags give.
func joinBridge(c *cli.Context, log *slog.Logger) (*bridge.Bridge, error) {
	return bridge.Connect(c.Context, bridgeOptions(c, log))
}

// leave takes this process off the bridge network (a host hands its
// sessions over). A failure is logged, not returned: the command's own
// result stands.
func leave(b *bridge.Bridge, log *slog.Logger) {
	if err := b.Close(); err != nil {
		log.Warn("leaving the bridge network", "err", err)
	}
}

func bridgeOptions(c *cli.Context, log *slog.Logger) bridge.Options {
	return bridge.Options{
		Port:          global(c, "port").Int("port"),
		Remote:        global(c, "remote").String("remote"),
		Version:       commands.Version,
		PluginVersion: commands.PluginBuild.Version,
		Log:           log,
	}
}

// refuseGlobals makes a usage error of any of the global flags names that
// were given to a command they mean nothing to; why says what it does
// instead.
func refuseGlobals(c *cli.Context, why string, names ...string) error {
	for _, name := range names {
		if global(c, name).IsSet(name) {
			return commands.UsageError{Err: fmt.Errorf("--%s does not apply to %s: %s", name, c.Command.Name, why)}
		}
	}
	return nil
}

// noArgs is for surfaces that take flags only.
func noArgs(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return commands.UsageError{Err: fmt.Errorf("%s takes no arguments, got %q", c.Command.Name, c.Args().First())}
	}
	return nil
}

// global returns the context, command's or app's, where a global flag was
// set, so `studio-bridge --port 1 sessions` and `studio-bridge sessions
// --port 1` mean the same.
func global(c *cli.Context, name string) *cli.Context {
	for _, lc := range c.Lineage() {
		if lc.IsSet(name) {
			return lc
		}
	}
	return c
}

// usageError answers a bad flag or argument with the command's usage line.
func usageError(c *cli.Context, err error, isSubcommand bool) error {
	if !isSubcommand || c.Command == nil || c.Command.Name == "" {
		return commands.UsageError{Err: fmt.Errorf("%w\nusage: studio-bridge [global flags] <command> [arguments]; run `studio-bridge --help` for more", err)}
	}
	usage := c.Command.Name
	if d := commands.Lookup(c.Command.Name); d != nil {
		usage = d.Usage()
	}
	return commands.UsageError{Err: fmt.Errorf("%w\nusage: studio-bridge %s [flags]; run `studio-bridge %s --help` for the flags", err, usage, c.Command.Name)}
}

// visibleCommands names the commands help lists.
func visibleCommands(app *cli.App) []string {
	var names []string
	for _, cmd := range app.VisibleCommands() {
		names = append(names, cmd.Name)
	}
	return names
}

// newLogger logs at level, or, when the user gave none (""), at the
// default: warn, or info for long-running commands (serve reports role
// changes).
func newLogger(level string, d *commands.Definition, w io.Writer) (*slog.Logger, error) {
	l := slog.LevelWarn
	if d != nil && d.LongRunning {
		l = slog.LevelInfo
	}
	if level != "" {
		if err := l.UnmarshalText([]byte(level)); err != nil {
			return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
		}
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
