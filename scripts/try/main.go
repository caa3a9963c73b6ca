// Command try runs studio-bridge without Studio: a bridge host and one
// emulated Studio window (test/emulator: the real plugin source under a
// real Luau VM) on one port, until Ctrl-C. Run it from the repository with
// Go and Node.js 20+ with npm:
//
//	go run ./scripts/try [--port 38741]
//
// It compiles nothing but itself and studio-bridge (no go-task), installs
// the emulator's Node packages only when they are missing or stale, says
// what it is doing at each step, and tells when the window is connected and
// which command to try. The emulator reads this terminal: type play, stop
// or print hi into it. See README.md, "Try it without Studio".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	port := flag.Int("port", 38741, "the bridge port (the emulated plugin's setting too)")
	bin := flag.String("bin", "", "where to build studio-bridge (default: bin/studio-bridge in the repository)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/try [--port N] [--bin PATH]\n\nA bridge host and an emulated Studio window until Ctrl-C. Needs Go, and Node.js 20+ with npm.")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *port < 1 || *port > 65535 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, *port, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "try:", err)
		stop()
		os.Exit(1)
	}
}
