package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// run is try: check the tools, prepare the emulator and the binary, then
// run the host and the window until ctx ends or one of them stops.
func run(ctx context.Context, port int, bin string) error {
	start := time.Now()
	root, err := repoRoot()
	if err != nil {
		return err
	}
	emulator := filepath.Join(root, "test", "emulator")
	if bin == "" {
		bin = filepath.Join(root, "bin", "studio-bridge")
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
	}

	say("[1/4] checking Node.js and npm")
	node, err := checkNode(ctx)
	if err != nil {
		return err
	}
	if err := portFree(port); err != nil {
		return err
	}

	stale, err := staleNodePackages(emulator)
	if err != nil {
		return err
	}
	if stale == "" {
		say("[2/4] the emulator's Node packages are installed")
	} else {
		say("[2/4] installing the emulator's Node packages (%s): npm ci --prefix test/emulator", stale)
		if err := runShown(ctx, root, nil, "npm", "ci", "--prefix", "test/emulator", "--no-audit", "--no-fund"); err != nil {
			if ctx.Err() != nil {
				return nil // Ctrl-C: nothing runs yet
			}
			return fmt.Errorf("npm ci --prefix test/emulator: %w", err)
		}
	}

	prepared := time.Now()
	say("[3/4] building %s (go build; the first build on this machine takes a minute or two)", rel(root, bin))
	build := []string{"build", "-v", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/studio-bridge"}
	// Static, without urfave/cli's man pages: as `task build` and the tests
	// build it, so that it shares their build cache.
	if err := runShown(ctx, root, []string{"CGO_ENABLED=0"}, "go", build...); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("go build: %w", err)
	}
	if ctx.Err() != nil {
		return nil // Ctrl-C before anything ran: nothing to stop
	}

	built := time.Now()
	say("[4/4] starting the bridge host and an emulated Studio window on port %d", port)
	p := strconv.Itoa(port)
	host := &child{name: "the bridge host", cmd: exec.Command(bin, "--port", p, "serve")}
	ownGroup(host.cmd) // only try stops it: once, so it hands over gracefully
	window := &child{name: "the emulated Studio window", cmd: exec.Command(node, filepath.Join("bin", "studio.mjs"), "--port", p)}
	window.cmd.Dir = emulator
	window.cmd.Stdin = os.Stdin // its commands: play, stop, print …
	for _, c := range []*child{host, window} {
		if c.cmd.Stdout == nil {
			c.cmd.Stdout = os.Stderr // the host prints nothing on stdout; the window's lines are for people
		}
		c.cmd.Stderr = os.Stderr
		if err := c.start(); err != nil {
			host.stop()
			return err
		}
	}
	defer window.stop()
	defer host.stop()
	say("      host pid %d, window pid %d", host.cmd.Process.Pid, window.cmd.Process.Pid)

	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan error, 1)
	go func() { ready <- waitConnected(waitCtx, port, host.cmd.Process.Pid, 90*time.Second) }()
	for {
		select {
		case err := <-ready:
			ready = nil
			if err != nil {
				if ctx.Err() != nil {
					continue
				}
				say("warning: %v", err)
				continue
			}
			say("ready in %.1fs (checks and Node packages %.1fs, build %.1fs, host and window %.1fs): a Studio window in Edit mode is connected on port %d. In another terminal:",
				time.Since(start).Seconds(), prepared.Sub(start).Seconds(), built.Sub(prepared).Seconds(), time.Since(built).Seconds(), port)
			say("    %s --port %d exec 'print(1)'", rel(root, bin), port)
			say("  and sessions, state, query Workspace, terminal, mcp. Type play (or stop) here to switch modes; Ctrl-C ends both.")
		case <-host.done:
			window.stop()
			return fmt.Errorf("%s stopped (%v); its messages are above", host.name, host.err)
		case <-window.done:
			host.stop()
			return fmt.Errorf("%s stopped (%v); its messages are above", window.name, window.err)
		case <-ctx.Done():
			say("stopping")
			window.stop()
			host.stop()
			if err := errors.Join(host.failure(), window.failure()); err != nil {
				return err
			}
			say("stopped")
			return nil
		}
	}
}

// say prints one progress line on stderr.
func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "try: "+format+"\n", args...)
}

// rel is path relative to root when it is inside it, for shorter messages.
func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
		return r
	}
	return path
}

// repoRoot is the studio-bridge checkout around the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "test", "emulator", "bin", "studio.mjs")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not inside a studio-bridge checkout (no test/emulator/bin/studio.mjs above it): run try from the repository", dir)
		}
	}
}

// portFree checks that nothing listens on the port yet: try starts its own
// host, and a window would otherwise join whatever holds the port.
func portFree(port int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("port %d is taken (another studio-bridge host, or another program): stop it, or pick another port with --port (%v)", port, err)
	}
	return ln.Close()
}

// runShown runs name with args in dir, with env added to try's, its output
// shown on stderr as progress.
func runShown(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	return cmd.Run()
}
