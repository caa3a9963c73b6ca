package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// The flags every command shares and the checks and usage errors around
// them: what each command file builds on.

func globalFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.IntFlag{Name: "port", Value: protocol.DefaultPort, EnvVars: []string{"STUDIO_BRIDGE_PORT"}, Usage: "loopback port of the bridge host", Action: checkPort},
		&cli.StringFlag{Name: "remote", EnvVars: []string{"STUDIO_BRIDGE_REMOTE"}, Usage: "join the bridge host at `HOST:PORT` as a client only (devcontainers)", Action: checkRemote},
		&cli.DurationFlag{Name: "timeout", DefaultText: "the command's own", Usage: "override the command's action timeout", Action: checkTimeout},
		&cli.StringFlag{Name: "log-level", DefaultText: "warn; info for serve, error for mcp", EnvVars: []string{"STUDIO_BRIDGE_LOG_LEVEL"}, Usage: "diagnostics on stderr: debug, info, warn or error"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON document on stdout instead of text"},
		&cli.BoolFlag{Name: "keep-alive", Usage: "stay on the bridge network after the command until interrupted"},
	}, sourceMapFlags()...)
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

// commandPath is the path of the running command: "exec", or a group's
// leaf "script read".
func commandPath(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != c.App.Name && (len(names) == 0 || names[0] != x.Command.Name) {
			names = append([]string{x.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// usageError answers a bad flag or argument with the command's usage line.
func usageError(c *cli.Context, err error, isSubcommand bool) error {
	if !isSubcommand || c.Command == nil || c.Command.Name == "" {
		return commands.UsageError{Err: fmt.Errorf("%w\nusage: studio-bridge [global flags] <command> [arguments]; run `studio-bridge --help` for more", err)}
	}
	path := commandPath(c)
	usage := path
	if d := commands.Lookup(path); d != nil {
		usage = d.Usage()
	}
	return leafUsageError(err, path, usage)
}

// leafUsageError is a bad flag or argument of command path, with its usage
// line.
func leafUsageError(err error, path, usage string) error {
	return commands.UsageError{Err: fmt.Errorf("%w\nusage: studio-bridge %s [flags]; run `studio-bridge %s --help` for the flags", err, usage, path)}
}
