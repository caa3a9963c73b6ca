package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	json "github.com/segmentio/encoding/json"
	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

func cliCommand(d *commands.Definition, stdio IO) *cli.Command {
	cmd := &cli.Command{
		Name:         d.Name,
		Usage:        d.Summary,
		Description:  d.CLIHelp(),
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
		return commands.UsageError{Err: err}
	}
	log, err := newLogger(global(c, "log-level").String("log-level"), d, stdio.Err)
	if err != nil {
		return commands.UsageError{Err: err}
	}
	ctx := c.Context
	standalone := d.Standalone != nil && d.Standalone(args)
	for _, f := range []string{"session", "context", "wait"} {
		if standalone && d.NeedsSession && c.IsSet(f) {
			return commands.UsageError{Err: fmt.Errorf("--%s does not apply: with these arguments %s runs without Studio, so there is no session to pick", f, d.Name)}
		}
	}
	var b *bridge.Bridge
	if !d.Local && !standalone {
		if b, err = joinBridge(c, log); err != nil {
			return err
		}
		defer leave(b, log)
	}

	asJSON := global(c, "json").Bool("json")
	status, clearStatus := statusLine(stdio.Err)
	defer clearStatus()
	write, flush := lineWriter(stdio, asJSON, d.DataLines)
	defer flush()
	env := &commands.Env{Command: d, Stdout: stdio.Out, Stderr: stdio.Err, Log: log, Timeout: d.Timeout, Aligned: IsTerminal(stdio.Out),
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
			return commands.UsageError{Err: err}
		}
		if d.Retarget != nil {
			if target, err = d.Retarget(args, target); err != nil {
				return err
			}
		}
		done := func() {}
		if c.Duration("wait") > 0 {
			status("waiting for a Studio session…")
		} else {
			done = env.StatusAfter("looking for Studio sessions…")
		}
		env.Session, err = bridge.ResolveWaiting(ctx, b, target, c.Duration("wait"))
		done()
		clearStatus()
		if err != nil {
			return commands.ExplainNoSessions(err, b.Addr(), c.Duration("wait"))
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
// the defaults.
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
			if a.Kind == reflect.Bool {
				text = fmt.Sprint(c.Bool(a.Flag))
			}
			if err := bind.Set(a, text); err != nil {
				return nil, err
			}
		}
	}
	for _, w := range pos {
		if ok, err := bind.Word(w); !ok {
			return nil, fmt.Errorf("%s: unexpected argument %q; usage: studio-bridge %s", d.Name, w, d.Usage())
		} else if err != nil {
			return nil, err
		}
	}
	for _, a := range bind.Open() {
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
