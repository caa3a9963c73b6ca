package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	json "github.com/segmentio/encoding/json"
	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/project"
	"github.com/studio-bridge/studio-bridge/protocol"
)

func cliCommand(d *commands.Definition, stdio IO) *cli.Command {
	cmd := &cli.Command{
		Name:        d.Name,
		Usage:       d.Summary,
		Hidden:      d.Hidden,
		Description: d.CLIHelp(),
		ArgsUsage:   strings.TrimPrefix(strings.TrimPrefix(d.Usage(), d.Path()), " "),
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			if !isSubcommand {
				return usageError(c, err, isSubcommand)
			}
			return leafUsageError(err, d.Path(), d.Usage())
		},
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
			&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "target session `ID`: a session id, a window's instanceId, or a unique prefix of either (4+ characters; see `studio-bridge sessions`)"},
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
	if len(a.Enum) > 0 && !a.Switch && !commands.NamesAll(usage, a.Enum) {
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
		// repeatable (--merge a --merge b) and comma-separated
		return []cli.Flag{&cli.GenericFlag{Name: a.Flag, Aliases: aliases, Usage: usage + ", comma-separated", Value: &listValue{}}}
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
		return commands.UsageError{Err: err}
	}
	log, err := newLogger(global(c, "log-level").String("log-level"), d, stdio.Err)
	if err != nil {
		return commands.UsageError{Err: err}
	}
	if err := configureSourceMap(c, stdio.Err); err != nil {
		return err
	}
	ctx := c.Context
	asJSON := global(c, "json").Bool("json")
	status, clearStatus := statusLine(stdio.Err)
	defer clearStatus()
	write, flush := lineWriter(stdio, asJSON, d.DataLines)
	defer flush()
	req := commands.Request{Command: d, Args: args, Wait: c.Duration("wait"),
		Env: commands.Env{Stdout: stdio.Out, Stderr: stdio.Err, Log: log, Timeout: global(c, "timeout").Duration("timeout"), Aligned: IsTerminal(stdio.Out), Port: global(c, "port").Int("port"),
			Project: func() (string, error) { return project.Root(global(c, "project").String("project"), nil) },
			Status: func(s string) {
				if s == "" {
					clearStatus()
				} else {
					status(s)
				}
			},
			Output: func(l commands.Line) { clearStatus(); write(l) }}}
	if d.NeedsSession {
		req.Target.SessionID = c.String("session")
		if req.Target.Context, err = protocol.ParseContext(c.String("context")); err != nil {
			return commands.UsageError{Err: err}
		}
	}
	var b *bridge.Bridge
	req.Connect = func() (bridge.Conn, error) {
		var err error
		if b, err = joinBridge(c, log); err != nil {
			return nil, err
		}
		return b, nil
	}
	req.Env.Join, req.Env.Network, req.Env.Auth = req.Connect, network(c), authtoken.FromEnv()
	defer func() {
		if b != nil {
			leave(b, log)
		}
	}()
	o := commands.Invoke(ctx, req)
	clearStatus()
	flush() // streamed output comes before the result and any error
	if o.Kind != commands.Done {
		if b != nil { // no session at all: say where it looked, and for how long
			o.Err = commands.ExplainNoSessions(o.Err, b.Addr(), req.Wait)
		}
		return o.Err // cmd/studio-bridge renders it: its text, and the exit code of o.Kind
	}
	res := o.Result
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
		return Failure(res.Failure)
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
// the defaults; Invoke validates it.
func bindArgs(c *cli.Context, d *commands.Definition) (any, error) {
	bind := d.NewBinder()
	ptr := bind.Args
	pos := c.Args().Slice()
	for _, a := range commands.Fields(d.Args) {
		switch {
		case a.NoCLI || a.Positional:
		case a.Switch:
			var set []string
			for _, v := range a.Enum {
				if c.Bool(v) {
					set = append(set, "--"+v)
					if err := bind.Set(a, v); err != nil {
						return nil, err
					}
				}
			}
			if len(set) > 1 {
				return nil, fmt.Errorf("%s: %s contradict each other; give one", d.Name, strings.Join(set, " and "))
			}
		case c.IsSet(a.Flag):
			text := c.String(a.Flag)
			switch a.Kind {
			case reflect.Bool:
				text = fmt.Sprint(c.Bool(a.Flag))
			case reflect.Slice:
				if l, ok := c.Generic(a.Flag).(*listValue); ok {
					text = strings.Join(l.items, ",")
				}
			}
			if err := bind.Set(a, text); err != nil {
				return nil, err
			}
		}
	}
	for _, w := range pos {
		if ok, err := bind.Word(w); !ok {
			return nil, fmt.Errorf("%s: unexpected argument %q; usage: studio-bridge %s", d.Path(), w, d.Usage())
		} else if err != nil {
			return nil, err
		}
	}
	for _, a := range bind.Open() {
		if a.Required {
			return nil, fmt.Errorf("%s needs <%s>; usage: studio-bridge %s", d.Path(), a.Flag, d.Usage())
		}
	}
	if err := d.Prepare(ptr, c.App.Reader); err != nil {
		return nil, err
	}
	return ptr, nil
}

// listValue is a []string flag's value: each use adds to the list (--merge
// a.json --merge b.json), and a use may list several, comma-separated.
type listValue struct{ items []string }

func (l *listValue) Set(v string) error {
	l.items = append(l.items, v)
	return nil
}

func (l *listValue) String() string { return strings.Join(l.items, ",") }
