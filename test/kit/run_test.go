package kit

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnvKey makes the test binary, run by a test as a child, act as the
// process under test: print "out" and "err" and exit with the code it
// names, sleep for a minute ("sleep"), or act as the children of the
// signal tests ("interrupt", "echo": see signalChild).
const childEnvKey = "KIT_RUN_CHILD"

func init() {
	what, ok := os.LookupEnv(childEnvKey)
	if !ok {
		return
	}
	switch what {
	case "sleep":
		time.Sleep(time.Minute)
	case "interrupt", "echo":
		signalChild(what)
	}
	_, _ = os.Stdout.WriteString("out ")
	_, _ = os.Stderr.WriteString("err ")
	code, _ := strconv.Atoi(what)
	os.Exit(code)
}

// TestRun: Run returns what the process printed, apart or combined, and
// its exit code whatever it is; RunEnv does the same without a test;
// a process that outlives its timeout is an error.
func TestRun(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name           string
		opt            Options
		stdout, stderr string
		code           int
	}{
		{"exit 0", Options{Env: []string{childEnvKey + "=0"}}, "out ", "err ", 0},
		{"exit 3", Options{Env: []string{childEnvKey + "=3"}}, "out ", "err ", 3},
		{"combined", Options{Env: []string{childEnvKey + "=0"}, Combined: true}, "out err ", "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run(t, 30*time.Second, tt.opt, self)
			if r.Stdout != tt.stdout || r.Stderr != tt.stderr || r.Code != tt.code || r.Took <= 0 {
				t.Fatalf("got %+v; want stdout %q, stderr %q, code %d", r, tt.stdout, tt.stderr, tt.code)
			}
		})
	}

	env := ChildEnv(t, childEnvKey+"=4")
	done := make(chan Result, 1)
	go func() {
		r, err := RunEnv(env, 30*time.Second, self)
		if err != nil {
			r.Stderr += err.Error()
		}
		done <- r
	}()
	if r := <-done; r.Code != 4 || r.Stdout != "out " {
		t.Fatalf("RunEnv: %+v; want exit 4 after printing", r)
	}

	r, err := RunEnv(ChildEnv(t, childEnvKey+"=sleep"), 200*time.Millisecond, self)
	if err == nil || !strings.Contains(err.Error(), "still running after 200ms") {
		t.Fatalf("a process past its timeout: %+v, %v; want an error saying so", r, err)
	}
}
