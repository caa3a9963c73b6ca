package ptytest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/term"
)

// childEnv, when set, makes the test binary the program under test
// (runChild) instead of running the tests.
const childEnv = "PTYTEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	goleak.VerifyTestMain(m)
}

// runChild is the program Start runs in these tests. It says whether its
// stdin, stdout and stderr are terminals, then answers each line typed with
// "got [line]" until a line "exit N" ends it with status N.
func runChild() int {
	fmt.Printf("ready: terminals %t %t %t\n", term.IsTerminal(int(os.Stdin.Fd())), term.IsTerminal(int(os.Stdout.Fd())), term.IsTerminal(int(os.Stderr.Fd())))
	lines := bufio.NewScanner(os.Stdin) // drops the "\r" a Windows console ends lines with
	for lines.Scan() {
		var code int
		if _, err := fmt.Sscanf(lines.Text(), "exit %d", &code); err == nil {
			return code
		}
		fmt.Printf("got [%s]\n", lines.Text())
	}
	return 2 // end of input without "exit"
}

// startChild runs the test binary as runChild in a terminal of its own and
// waits until it is ready.
func startChild(t *testing.T) *Term {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	tty := Start(t, cmd)
	tty.WaitFor(t, "ready: terminals true true true")
	return tty
}

// TestStart types lines into a child on a terminal and reads its answers,
// then types the line that ends it and checks the exit status Wait reports.
func TestStart(t *testing.T) {
	for _, tc := range []struct {
		exit string // the line that ends the child
		want string // in Wait's error; "" for none
	}{
		{"exit 0", ""},
		{"exit 3", "exit status 3"},
	} {
		t.Run(tc.exit, func(t *testing.T) {
			tty := startChild(t)
			tty.Type(t, "hello\r")
			tty.WaitFor(t, "got [hello]")
			tty.Type(t, "two words\r")
			tty.WaitFor(t, "got [two words]")
			tty.Type(t, tc.exit+"\r")
			err := tty.Wait(t, 15*time.Second)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Wait: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Wait: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestStartCleanupKills: a child still running when its test ends is killed,
// and its screen stops recording, by Start's cleanup.
func TestStartCleanupKills(t *testing.T) {
	var tty *Term
	t.Run("child outlives the test", func(t *testing.T) { tty = startChild(t) })
	select {
	case <-tty.exited:
	default:
		t.Fatal("the child still runs after its test ended")
	}
	if tty.err == nil {
		t.Error("a killed child reported exit status 0")
	}
	select {
	case <-tty.Done():
	default:
		t.Fatal("the screen still records after its test ended")
	}
}
