package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/terminal"
)

// terminalCommand is the interactive surface (package terminal): a Luau
// REPL attached to one session, with dot-commands drawn from the registry.
func terminalCommand(stdio IO) *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "attach to session `ID`"},
		&cli.StringFlag{Name: "context", Usage: "attach to this DataModel: edit, server or client"},
		&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for a Studio session to connect"},
	}, globalFlags()...)
	return &cli.Command{
		Name:         "terminal",
		Usage:        "Interactive Luau REPL attached to a Studio session, with dot-commands (.help).",
		Flags:        flags,
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if err := refuseGlobals(c, "it is interactive and runs until you leave it", "json", "keep-alive"); err != nil {
				return err
			}
			log, err := newLogger(global(c, "log-level").String("log-level"), nil, stdio.Err)
			if err != nil {
				return commands.UsageError{Err: err}
			}
			if err := configureSourceMap(c, stdio.Err); err != nil {
				return err
			}
			// The terminal runs scripts, so in Play mode it attaches where
			// exec would run one (the server), as the resolver table says.
			target := bridge.Target{SessionID: c.String("session"), DefaultContext: commands.Exec.DefaultContext}
			if target.Context, err = protocol.ParseContext(c.String("context")); err != nil {
				return commands.UsageError{Err: err}
			}
			b, err := joinBridge(c, log)
			if err != nil {
				return err
			}
			defer leave(b, log)
			return terminal.Run(c.Context, terminal.Options{Conn: b, Log: log, Target: target, Wait: c.Duration("wait"),
				Timeout: global(c, "timeout").Duration("timeout"), Version: commands.Version, Project: global(c, "project").String("project"),
				Auth: authtoken.FromEnv(), In: stdio.In, Out: stdio.Out, Err: stdio.Err})
		},
	}
}
