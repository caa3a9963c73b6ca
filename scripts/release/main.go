// Command release builds a studio-bridge release into a folder (dist/ for
// `task release`): the zip archives that Rokit, Aftman and Foreman install,
// their SHA-256 sums and the npm packages (see internal/release and
// docs/release.md). Run it from the repository:
//
//	go run ./scripts/release --version v0.2.0 --out dist
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/internal/release"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run() error {
	version := flag.String("version", "", "the version: a tag such as v0.2.0, or a semantic version (required)")
	out := flag.String("out", "dist", "the output folder")
	only := flag.String("targets", "", "build only these targets, comma-separated (e.g. linux-x86_64); default: all six")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/release --version v0.2.0 [--out dist] [--targets linux-x86_64,...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *version == "" {
		flag.Usage()
		return fmt.Errorf("--version is required")
	}
	v, err := release.ParseVersion(*version)
	if err != nil {
		return err
	}
	targets, err := pick(*only)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := release.Build(ctx, release.Options{
		Version: v, Out: *out, Targets: targets, Date: commitTime(), Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release %s: %d archives, %s, %d npm packages in %s\n", v.Full, len(res.Archives), res.Sums, len(res.NPM), *out)
	return nil
}

// pick is the targets named in list (comma-separated names such as
// linux-x86_64), or every target for an empty list.
func pick(list string) ([]release.Target, error) {
	if list == "" {
		return release.Targets, nil
	}
	var picked []release.Target
	for _, name := range strings.Split(list, ",") {
		found := false
		for _, t := range release.Targets {
			if t.Name() == strings.TrimSpace(name) {
				picked, found = append(picked, t), true
			}
		}
		if !found {
			var names []string
			for _, t := range release.Targets {
				names = append(names, t.Name())
			}
			return nil, fmt.Errorf("unknown target %q: want one of %s", name, strings.Join(names, ", "))
		}
	}
	return picked, nil
}

// commitTime is the time of the checked-out commit, which dates the
// archives' files so that two builds of one commit zip the same bytes; the
// current time outside a git checkout.
func commitTime() time.Time {
	out, err := exec.Command("git", "log", "-1", "--format=%ct").Output()
	if err == nil {
		if s, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil {
			return time.Unix(s, 0)
		}
	}
	return time.Now()
}
