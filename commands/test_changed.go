package commands

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/studio-bridge/studio-bridge/commands/testrun"
)

// test --changed-since REF: only the specs whose files, or the files they
// require, changed since a git ref run. git says which files changed
// (testrun.ChangedFiles); the source map follows each spec's requires to
// their files (testrun.Changes). A require it cannot follow means the spec
// runs, as does every spec the map does not know under --root.

// changedSince asks git for the files changed since args.ChangedSince, in
// the work tree of the source map's project (else the current folder).
func changedSince(ctx context.Context, args *TestArgs) (*testrun.Changes, error) {
	m := SourceMap()
	dir := "."
	if m != nil {
		dir = m.Dir
	} else if wd, err := os.Getwd(); err == nil {
		dir = wd
	}
	files, err := testrun.ChangedFiles(ctx, dir, args.ChangedSince)
	if err != nil {
		return nil, runnerUsage(err)
	}
	return testrun.NewChanges(m, files), nil
}

// skipChanged tells the runner which specs to leave out: spec files from
// disk by file; with --root (and --cloud) the specs the source map has
// under it, by instance path; a synced spec file by its instance.
func skipChanged(args *TestArgs, c *testrun.Config) {
	switch {
	case args.synced != nil:
		if !args.changes.Affected(args.synced.Path, args.synced.File) {
			c.Skip = []string{args.synced.Path}
		}
		args.skipped = len(c.Skip)
	case args.Root != "":
		c.Skip, _ = args.changes.Skipped(args.Root)
		args.skipped = len(c.Skip)
	default:
		c.SkipFile = args.changes.SkipFile
	}
}

// unchangedReport is the run of --changed-since when every spec file from
// disk was left out: an empty report, passing, saying so.
func unchangedReport(env *Env, args *TestArgs) (*Result, error) {
	fmt.Fprintf(env.stderr(), "test: --changed-since %s: skipping all %d spec(s): they and everything they require are unchanged\n", args.ChangedSince, args.skipped)
	return runReport(args, TestData{Tests: []TestCase{}})
}

// stderr is where remarks for people go: env.Stderr, or nowhere.
func (env *Env) stderr() io.Writer {
	if env.Stderr == nil {
		return io.Discard
	}
	return env.Stderr
}
