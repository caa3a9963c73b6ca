package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Result is how a process that Run ran to its end went.
type Result struct {
	Stdout, Stderr string        // what it printed; both in Stdout with Options.Combined
	Code           int           // its exit code (-1 when a signal ended it)
	Took           time.Duration // from its start until it was reaped
}

// Run runs path with args to its end, for at most timeout, in ChildEnv plus
// opt.Env and in opt.Dir, with an empty stdin, and returns what it printed
// and its exit code, whatever that is. A process that cannot start, or that
// is still running at timeout (it is then killed), fails tb.
func Run(tb testing.TB, timeout time.Duration, opt Options, path string, args ...string) Result {
	tb.Helper()
	if opt.Stdin {
		tb.Fatal("kit.Run gives the process an empty stdin: Options.Stdin is for kit.Start")
	}
	r, err := run(ChildEnv(tb, opt.Env...), opt, timeout, path, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// RunEnv is Run for a goroutine other than the test's, which must not fail
// the test: env is the process's whole environment (made with ChildEnv on
// the test's goroutine), and a process that cannot start or outlives
// timeout is an error.
func RunEnv(env []string, timeout time.Duration, path string, args ...string) (Result, error) {
	return run(env, Options{}, timeout, path, args...)
}

// run is Run and RunEnv in the environment env; opt.Env is already in it.
func run(env []string, opt Options, timeout time.Duration, path string, args ...string) (Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir, cmd.Env = opt.Dir, env
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if opt.Combined {
		cmd.Stderr = &stdout
	}
	cmd.WaitDelay = time.Second // a grandchild holding its output does not hold us
	t0 := time.Now()
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String(), Took: time.Since(t0)}
	line := strings.Join(append([]string{filepath.Base(path)}, args...), " ")
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("%s: still running after %s; stderr:\n%s", line, timeout, r.Stderr)
	case err == nil:
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	default:
		return r, fmt.Errorf("%s: %w", line, err)
	}
	return r, nil
}
