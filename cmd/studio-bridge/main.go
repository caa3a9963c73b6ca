package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/studio-bridge/studio-bridge/cli"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/plugin"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit codes, documented in the README.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitNoSession   = 3
	exitTimeout     = 4
	exitInterrupted = 130
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
	code := mainRun(ctx, os.Args, cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// mainRun runs the command line and returns the process's exit code,
// having reported any error on stderr.
func mainRun(ctx context.Context, args []string, stdio cli.IO) int {
	err := cli.Run(ctx, args, stdio)
	if err != nil {
		printError(stdio.Err, err)
	}
	return exitCode(err)
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

// exitCodes are the CLI's rendering of an outcome's kind.
var exitCodes = map[commands.Kind]int{
	commands.Done:        exitOK,
	commands.Usage:       exitUsage,
	commands.NoSession:   exitNoSession,
	commands.Ambiguous:   exitNoSession,
	commands.Unavailable: exitNoSession,
	commands.TimedOut:    exitTimeout,
	commands.Cancelled:   exitInterrupted,
	commands.Failed:      exitFailure,
}

// exitCode maps an error to the documented exit codes, by the kind
// commands.Classify gives it (a cli.Failure, a script error, is Failed).
func exitCode(err error) int {
	return exitCodes[commands.Classify(err).Kind]
}

// printError reports err for people: the error, a hint at what to do, and
// for an ambiguous target the sessions to choose from.
func printError(w io.Writer, err error) {
	o := commands.Classify(err)
	fmt.Fprintf(w, "studio-bridge: %v\n", err)
	if o.Detail != "" {
		fmt.Fprintf(w, "  %s\n", o.Detail)
	}
	if o.Resolve != 0 && len(o.Sessions) > 0 {
		fmt.Fprint(w, "\n"+commands.RenderSessions(o.Sessions, time.Now(), cli.IsTerminal(w)))
		fmt.Fprintln(w, "\nPick one with --session <SESSION>, or --context edit|server|client within one Studio instance.")
	}
}
