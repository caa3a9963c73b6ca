package testrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// test --changed-since REF: the files changed since a git ref, and which
// specs they concern (requires.go follows each spec's requires through the
// source map).

// Bounds on asking git: how long, and how much it may answer.
const (
	gitTimeout  = 30 * time.Second
	maxGitBytes = 32 << 20
)

// ChangedFiles lists, as absolute real paths (symlinks resolved), the files of the git work
// tree holding dir that changed since ref: committed since the merge base
// of ref and HEAD (git diff REF...), changed in the work tree or the index
// (git diff HEAD), and new files git does not ignore. git must be on PATH.
func ChangedFiles(ctx context.Context, dir, ref string) (map[string]bool, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n\r") {
		return nil, usagef("test: --changed-since %q is not a git ref (a branch, tag or commit, e.g. origin/main)", ref)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, usagef("test: --changed-since asks git which files changed, and git is not on PATH (%v): install git, or run without --changed-since", err)
	}
	top, err := runGit(ctx, git, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, usagef("test: --changed-since: %s is not in a git work tree (%v)", dir, err)
	}
	root := filepath.Clean(strings.TrimSpace(string(top)))
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	out := map[string]bool{}
	for _, args := range [][]string{
		{"diff", "--name-only", "-z", "--no-renames", ref + "...", "--"},
		{"diff", "--name-only", "-z", "--no-renames", "HEAD", "--"},
		{"ls-files", "--others", "--exclude-standard", "-z"},
	} {
		raw, err := runGit(ctx, git, root, args...)
		if err != nil {
			if args[0] == "diff" && args[4] != "HEAD" {
				return nil, usagef("test: --changed-since %s: git cannot compare with it (%v); is it a branch, tag or commit here (fetched, in a shallow CI clone)?", ref, err)
			}
			return nil, fmt.Errorf("test: --changed-since: git %s: %w", strings.Join(args[:2], " "), err)
		}
		for _, name := range bytes.Split(raw, []byte{0}) {
			if len(name) > 0 {
				out[filepath.Join(root, filepath.FromSlash(string(name)))] = true
			}
		}
	}
	return out, nil
}

// runGit runs git with args in dir, bounded in time and in output, and
// returns its standard output; a failure carries git's first error line.
func runGit(ctx context.Context, git, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = dir
	stdout := &capped{max: maxGitBytes}
	var stderr capped
	stderr.max = 64 << 10
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := cmd.Run()
	switch {
	case stdout.over:
		return nil, fmt.Errorf("git %s answered more than %d MiB", args[0], maxGitBytes>>20)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git %s did not answer within %s", args[0], gitTimeout)
	case err != nil:
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.buf.String()), "\n")
		if line == "" {
			line = err.Error()
		}
		return nil, errors.New(line)
	}
	return stdout.buf.Bytes(), nil
}

// capped is a writer that keeps at most max bytes and says whether more
// came.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return 0, errors.New("output over its bound")
	}
	return c.buf.Write(p)
}
