package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"reflect"
	"strconv"
	"strings"
	"time"

	json "github.com/segmentio/encoding/json"
	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// IO is the process's streams, injected so tests can drive the CLI.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// Run runs the CLI with args and returns the exit code.
func Run(ctx context.Context, args []string, stdio IO) int {
	var notFound error
	app := newApp(stdio, &notFound)
	if completeValue(ctx, app, args, stdio.Out) {
		return ExitOK
	}
	err := app.RunContext(ctx, interspersed(app, args))
	if err == nil {
		err = notFound
	}
	return reportError(stdio.Err, err)
}

func init() {
	// --version prints what the version command prints.
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprint(c.App.Writer, commands.VersionLine()) }
}

func newApp(stdio IO, notFound *error) *cli.App {
	app := &cli.App{
		Name:                 "studio-bridge",
		Usage:                "drive Roblox Studio from the terminal, CI and AI agents",
		Version:              version,
		Reader:               stdio.In,
		Writer:               stdio.Out,
		ErrWriter:            stdio.Err,
		EnableBashCompletion: true,
		Flags:                globalFlags(),
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         usageError,
		CommandNotFound: func(c *cli.Context, name string) {
			*notFound = usageErr{fmt.Errorf("unknown command %q\nusage: studio-bridge [global flags] <command> [arguments]; commands: %s; run `studio-bridge --help` for more",
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
		return usageErr{fmt.Errorf("--port / STUDIO_BRIDGE_PORT: %d is not a TCP port; use 1–65535 (the default is %d)", port, protocol.DefaultPort)}
	}
	return nil
}

// checkRemote refuses a --remote that cannot be dialled as HOST:PORT.
func checkRemote(_ *cli.Context, remote string) error {
	host, port, err := net.SplitHostPort(remote)
	if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
		return usageErr{fmt.Errorf("--remote / STUDIO_BRIDGE_REMOTE: %q is not HOST:PORT (e.g. host.docker.internal:%d)", remote, protocol.DefaultPort)}
	}
	return nil
}

// checkTimeout refuses a timeout that would end every action at once.
func checkTimeout(_ *cli.Context, d time.Duration) error {
	if d <= 0 {
		return usageErr{fmt.Errorf("--timeout: %s is not a timeout; give a positive duration such as 30s or 2m", d)}
	}
	return nil
}

// joinBridge puts this process on the bridge network, as host or client,
// with the port and remote the global flags give.
func joinBridge(c *cli.Context, log *slog.Logger) (*bridge.Bridge, error) {
	return bridge.Connect(c.Context, bridgeOptions(c, log))
}

func bridgeOptions(c *cli.Context, log *slog.Logger) bridge.Options {
	return bridge.Options{
		Port:          global(c, "port").Int("port"),
		Remote:        global(c, "remote").String("remote"),
		Version:       version,
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
			return usageErr{fmt.Errorf("--%s does not apply to %s: %s", name, c.Command.Name, why)}
		}
	}
	return nil
}

// noArgs is for surfaces that take flags only.
func noArgs(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageErr{fmt.Errorf("%s takes no arguments, got %q", c.Command.Name, c.Args().First())}
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

// usageErr marks errors that exit with code 2.
type usageErr struct{ error }

// usageError answers a bad flag or argument with the command's usage line.
func usageError(c *cli.Context, err error, isSubcommand bool) error {
	if !isSubcommand || c.Command == nil || c.Command.Name == "" {
		return usageErr{fmt.Errorf("%w\nusage: studio-bridge [global flags] <command> [arguments]; run `studio-bridge --help` for more", err)}
	}
	usage := c.Command.Name
	if d := commands.Lookup(c.Command.Name); d != nil {
		usage = d.Usage()
	}
	return usageErr{fmt.Errorf("%w\nusage: studio-bridge %s [flags]; run `studio-bridge %s --help` for the flags", err, usage, c.Command.Name)}
}

// visibleCommands names the commands help lists.
func visibleCommands(app *cli.App) []string {
	var names []string
	for _, cmd := range app.VisibleCommands() {
		names = append(names, cmd.Name)
	}
	return names
}

func cliCommand(d *commands.Definition, stdio IO) *cli.Command {
	cmd := &cli.Command{
		Name:         d.Name,
		Usage:        d.Summary,
		Hidden:       d.Hidden,
		ArgsUsage:    strings.TrimPrefix(strings.TrimPrefix(d.Usage(), d.Name), " "),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			return runCommand(c, d, stdio)
		},
	}
	for _, a := range commands.Fields(d.Args) {
		if a.Positional || a.NoCLI {
			continue
		}
		cmd.Flags = append(cmd.Flags, flagsFor(a)...)
	}
	// Global flags work before or after the command name.
	cmd.Flags = append(cmd.Flags, globalFlags()...)
	if d.NeedsSession {
		cmd.Flags = append(cmd.Flags,
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "target session `ID` (see `studio-bridge sessions`)"},
			&cli.StringFlag{Name: "context", Usage: "target DataModel: edit, server or client"},
			&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for a matching Studio session to connect (CI starting Studio)"},
		)
	}
	return cmd
}

// flagsFor derives a command-line flag (or, for a switch enum, one flag
// per value) from an argument's tags.
func flagsFor(a commands.Arg) []cli.Flag {
	var aliases []string
	if a.Short != "" {
		aliases = []string{a.Short}
	}
	usage := a.Usage
	if len(a.Enum) > 0 && !a.Switch {
		usage += " (" + strings.Join(a.Enum, ", ") + ")"
	}
	switch {
	case a.Switch:
		var out []cli.Flag
		for i, v := range a.Enum {
			out = append(out, &cli.BoolFlag{Name: v, Usage: a.Switches[i]})
		}
		return out
	case a.Kind == reflect.Bool:
		return []cli.Flag{&cli.BoolFlag{Name: a.Flag, Aliases: aliases, Usage: usage}}
	case a.Kind == reflect.Int:
		return []cli.Flag{&cli.StringFlag{Name: a.Flag, Aliases: aliases, Usage: usage, DefaultText: a.Default}}
	case a.Kind == reflect.Slice:
		return []cli.Flag{&cli.StringFlag{Name: a.Flag, Aliases: aliases, Usage: usage + ", comma-separated"}}
	default:
		return []cli.Flag{&cli.StringFlag{Name: a.Flag, Aliases: aliases, Usage: usage, DefaultText: a.Default}}
	}
}

func runCommand(c *cli.Context, d *commands.Definition, stdio IO) error {
	switch {
	case d.LongRunning:
		if err := refuseGlobals(c, "it runs until interrupted and prints no document", "json", "keep-alive"); err != nil {
			return err
		}
	case d.Local:
		if err := refuseGlobals(c, "it does not join the bridge network", "keep-alive"); err != nil {
			return err
		}
	}
	args, err := bindArgs(c, d)
	if err != nil {
		return usageErr{err}
	}
	log, err := newLogger(global(c, "log-level").String("log-level"), d, stdio.Err)
	if err != nil {
		return usageErr{err}
	}
	ctx := c.Context
	standalone := d.Standalone != nil && d.Standalone(args)
	var b *bridge.Bridge
	if !d.Local && !standalone {
		if b, err = joinBridge(c, log); err != nil {
			return err
		}
		defer b.Close()
	}

	asJSON := global(c, "json").Bool("json")
	status, clearStatus := statusLine(stdio.Err)
	defer clearStatus()
	write, flush := lineWriter(stdio, asJSON, d.DataLines)
	defer flush()
	env := &commands.Env{Command: d, Stdout: stdio.Out, Stderr: stdio.Err, Log: log, Timeout: d.Timeout, Aligned: isTerminal(stdio.Out),
		Status: status, Output: func(l commands.Line) { clearStatus(); write(l) }}
	if b != nil { // a Local command gets no bridge, not a nil *Bridge in an interface
		env.Bridge = b
	}
	if t := global(c, "timeout").Duration("timeout"); t > 0 {
		env.Timeout = t
	}
	if d.NeedsSession && !standalone {
		target := bridge.Target{SessionID: c.String("session"), DefaultContext: d.DefaultContext}
		if target.Context, err = protocol.ParseContext(c.String("context")); err != nil {
			return usageErr{err}
		}
		done := func() {}
		if c.Duration("wait") > 0 {
			status("waiting for a Studio session…")
		} else {
			done = env.StatusAfter("looking for Studio sessions…")
		}
		env.Session, err = resolveWaiting(ctx, b, target, c.Duration("wait"))
		done()
		clearStatus()
		if err != nil {
			return err
		}
	}
	res, err := d.Run(ctx, env, args)
	clearStatus()
	flush() // streamed output comes before the result and any error
	if err != nil {
		return err
	}
	if err := printResult(stdio.Out, res, asJSON); err != nil {
		return err
	}
	if res != nil && !asJSON {
		for _, remark := range []string{res.Unavailable, res.Note} {
			if remark != "" {
				fmt.Fprintln(stdio.Err, remark)
			}
		}
	}
	if res != nil && res.Failure != "" {
		return failure(res.Failure)
	}
	if global(c, "keep-alive").Bool("keep-alive") && !d.LongRunning {
		<-ctx.Done()
	}
	return nil
}

func printResult(w io.Writer, res *commands.Result, asJSON bool) error {
	if res == nil {
		return nil
	}
	if asJSON {
		if res.Data == nil {
			return nil
		}
		// One generous buffer rather than append's many regrowths: in a
		// one-shot process every fresh page costs a fault, and a big
		// document (sessions of a thousand Studio windows) regrew through
		// five times its size. Pages never written are never touched.
		out, err := json.Append(make([]byte, 0, 1<<20), res.Data, json.SortMapKeys)
		if err != nil {
			return err
		}
		_, err = w.Write(append(out, '\n'))
		return err
	}
	_, err := io.WriteString(w, res.People())
	return err
}

// bindArgs fills the command's Args struct from flags and positionals, over
// the defaults.
func bindArgs(c *cli.Context, d *commands.Definition) (any, error) {
	ptr := d.NewArgs()
	pos := c.Args().Slice()
	slots := d.Slots()
	for _, a := range commands.Fields(d.Args) {
		switch {
		case a.NoCLI || a.Positional:
		case a.Switch:
			var set []string
			for _, v := range a.Enum {
				if c.Bool(v) {
					set = append(set, "--"+v)
					if err := commands.Set(ptr, a, v); err != nil {
						return nil, err
					}
				}
			}
			if len(set) > 1 {
				return nil, fmt.Errorf("%s: %s contradict each other; give one", d.Name, strings.Join(set, " and "))
			}
		case c.IsSet(a.Flag):
			text := c.String(a.Flag)
			if a.Kind == reflect.Bool {
				text = fmt.Sprint(c.Bool(a.Flag))
			}
			if err := commands.Set(ptr, a, text); err != nil {
				return nil, err
			}
			for i, s := range slots {
				if s.Index == a.Index {
					slots = append(slots[:i], slots[i+1:]...)
					break
				}
			}
		}
	}
	for _, w := range pos {
		if len(slots) == 0 {
			return nil, fmt.Errorf("%s: unexpected argument %q; usage: studio-bridge %s", d.Name, w, d.Usage())
		}
		if err := commands.Set(ptr, slots[0], w); err != nil {
			return nil, err
		}
		slots = slots[1:]
	}
	for _, a := range slots {
		if a.Required {
			return nil, fmt.Errorf("%s needs <%s>; usage: studio-bridge %s", d.Name, a.Flag, d.Usage())
		}
	}
	if d.PrepareCLI != nil {
		if err := d.PrepareCLI(ptr, c.App.Reader); err != nil {
			return nil, err
		}
	}
	if err := d.Validate(ptr); err != nil {
		return nil, err
	}
	return ptr, nil
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

// Exit codes, documented in the README.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitNoSession   = 3
	ExitTimeout     = 4
	ExitInterrupted = 130
)

// exitCode maps an error to the documented exit codes.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ue usageErr
	var cue commands.UsageError
	var re *bridge.ResolveError
	var pe *bridge.PortInUseError
	switch {
	case errors.As(err, &ue), errors.As(err, &cue):
		return ExitUsage
	case errors.As(err, new(failure)):
		return ExitFailure
	case errors.As(err, &re), errors.As(err, &pe):
		return ExitNoSession
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	switch protocol.CodeOf(err) {
	case protocol.CodeSessionNotFound, protocol.CodeSessionDisconnected, protocol.CodeUnknownOutcome,
		protocol.CodeHostUnavailable, protocol.CodeShuttingDown:
		return ExitNoSession
	case protocol.CodeTimeout:
		return ExitTimeout
	case protocol.CodeCancelled:
		return ExitInterrupted
	}
	if strings.Contains(err.Error(), "flag provided but not defined") {
		return ExitUsage
	}
	return ExitFailure
}

// reportError prints err for people and returns the exit code.
func reportError(w io.Writer, err error) int {
	code := exitCode(err)
	if err == nil {
		return code
	}
	fmt.Fprintf(w, "studio-bridge: %v\n", err)
	if hint := commands.Hint(err); hint != "" {
		fmt.Fprintf(w, "  %s\n", hint)
	}
	var re *bridge.ResolveError
	if errors.As(err, &re) && len(re.Sessions) > 0 {
		fmt.Fprint(w, "\n"+commands.RenderSessions(re.Sessions, time.Now(), isTerminal(w)))
		fmt.Fprintln(w, "\nPick one with --session <SESSION>, or --context edit|server|client within one Studio instance.")
	}
	return code
}
