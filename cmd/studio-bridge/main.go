package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/plugin"
)

func main() {
	commands.Version = version
	commands.PluginBuild.Data, commands.PluginBuild.Version = plugin.RBXM, plugin.Version()
	if oneShot(os.Args) {
		// A one-shot command allocates little and exits soon: collecting
		// garbage only past a memory limit saves it several milliseconds.
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(512 << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal starts a graceful stop; a second one kills at once.
	context.AfterFunc(ctx, stop)
	code := Run(ctx, os.Args, IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// oneShot reports whether the command line runs a short command rather than
// a long-lived one (serve, mcp, terminal, logs --follow, --keep-alive).
func oneShot(args []string) bool {
	for _, a := range args[1:] {
		switch a {
		case "serve", "mcp", "terminal", "--follow", "-f", "--keep-alive":
			return false
		}
	}
	return true
}
