package cli

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
)

// What a command runs with: its logger and its place on the bridge
// network, as the global flags set them.

// joinBridge puts this process on the bridge network, as host or client,
// with the port and remote the global flags give.
func joinBridge(c *cli.Context, log *slog.Logger) (*bridge.Bridge, error) {
	opts, err := bridgeOptions(c, log)
	if err != nil {
		return nil, err
	}
	return bridge.Connect(c.Context, opts)
}

// leave takes this process off the bridge network (a host hands its
// sessions over). A failure is logged, not returned: the command's own
// result stands.
func leave(b *bridge.Bridge, log *slog.Logger) {
	if err := b.Close(); err != nil {
		log.Warn("leaving the bridge network", "err", err)
	}
}

// bridgeOptions are the bridge options the global flags and the
// environment give: the port, the remote host, and the user's token and
// config directory (authtoken.FromEnv; this package is the only reader of
// the environment for them).
func bridgeOptions(c *cli.Context, log *slog.Logger) (bridge.Options, error) {
	auth := authtoken.FromEnv()
	tok, err := auth.Resolve()
	if err != nil {
		return bridge.Options{}, err
	}
	return bridge.Options{
		Port:          global(c, "port").Int("port"),
		Remote:        global(c, "remote").String("remote"),
		Version:       commands.Version,
		PluginVersion: commands.PluginBuild.Version,
		Log:           log,
		Token:         tok,
		ConfigDir:     auth.ConfigDir,
	}, nil
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

// network is the port, remote and config directory the global flags give,
// for doctor's report.
func network(c *cli.Context) commands.Network {
	n := commands.Network{Port: global(c, "port").Int("port"), PortFrom: "default",
		Remote: global(c, "remote").String("remote"), ConfigDir: authtoken.FromEnv().ConfigDir}
	if global(c, "port").IsSet("port") {
		n.PortFrom = "--port / STUDIO_BRIDGE_PORT"
	}
	return n
}
