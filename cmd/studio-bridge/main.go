// Command studio-bridge drives Roblox Studio from a terminal, from CI and
// from MCP clients. See the README for usage.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal starts a graceful stop; a second one kills at once.
	context.AfterFunc(ctx, stop)
	code := Run(ctx, os.Args, IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
