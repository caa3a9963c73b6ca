package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/commands"
)

// registryCommands is a command per definition of defs, in order; the
// leaves of a group become subcommands of one parent command, placed where
// the group's first leaf is.
func registryCommands(defs []*commands.Definition, stdio IO) []*cli.Command {
	var out []*cli.Command
	parents := map[*commands.Group]*cli.Command{}
	for _, d := range defs {
		if d.Group == nil {
			out = append(out, cliCommand(d, stdio))
			continue
		}
		parent, ok := parents[d.Group]
		if !ok {
			parent = groupCommand(d.Group, defs)
			parents[d.Group] = parent
			out = append(out, parent)
		}
		parent.Subcommands = append(parent.Subcommands, cliCommand(d, stdio))
	}
	return out
}

// groupCommand is the parent command of a group: it runs nothing itself,
// and a missing or unknown leaf is a usage error that lists the leaves.
func groupCommand(g *commands.Group, defs []*commands.Definition) *cli.Command {
	var leaves []string
	for _, d := range g.Leaves(defs) {
		leaves = append(leaves, d.Name)
	}
	return &cli.Command{
		Name:         g.Name,
		Usage:        g.Summary,
		ArgsUsage:    "<" + strings.Join(leaves, "|") + "> [arguments]",
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return commands.UsageError{Err: fmt.Errorf("%s: unknown subcommand %q; it has %s; run `studio-bridge %s --help` for more", g.Name, c.Args().First(), strings.Join(leaves, ", "), g.Name)}
			}
			return commands.UsageError{Err: fmt.Errorf("%s needs a subcommand: %s; run `studio-bridge %s --help` for more", g.Name, strings.Join(leaves, ", "), g.Name)}
		},
	}
}
