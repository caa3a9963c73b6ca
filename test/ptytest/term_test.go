package ptytest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/term"
)

// childEnv, when set, makes the test binary the program under test instead
// of running the tests: "echo" or "sleep" (see runChild).
const childEnv = "PTYTEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// runChild is the program Start runs in these tests. It says whether its
// stdin, stdout and stderr are terminals; then "echo" answers each line typed
// with "got [line]" until a line "exit N" ends it with status N, and "sleep"
// ignores its terminal until it is killed.
func runChild(mode string) int {
	fmt.Printf("ready: terminals %t %t %t\n", term.IsTerminal(int(os.Stdin.Fd())), term.IsTerminal(int(os.Stdout.Fd())), term.IsTerminal(int(os.Stderr.Fd())))
	if mode == "sleep" {
		time.Sleep(time.Hour)
		return 1
	}
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		line := strings.TrimSuffix(lines.Text(), "\r")
		if code, ok := strings.CutPrefix(line, "exit "); ok {
			n, _ := strconv.Atoi(code)
			return n
		}
		fmt.Printf("got [%s]\n", line)
	}
	return 2 // end of input without "exit"
}

// child is the test binary run as runChild in mode.
func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

// TestStart types lines into a child on a terminal and reads its answers,
// then types the line that ends it and checks the exit status Wait reports.
func TestStart(t *testing.T) {
	for _, tc := range []struct {
		code int
		want string // in Wait's error; "" for none
	}{
		{0, ""},
		{3, "exit status 3"},
	} {
		t.Run(strconv.Itoa(tc.code), func(t *testing.T) {
			tty := Start(t, child("echo"))
			tty.WaitFor(t, "ready: terminals true true true")
			tty.Type(t, "hello\r")
			tty.WaitFor(t, "got [hello]")
			tty.Type(t, "two words\r")
			tty.WaitFor(t, "got [two words]")
			tty.Type(t, fmt.Sprintf("exit %d\r", tc.code))
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
	t.Run("child outlives the test", func(t *testing.T) {
		tty = Start(t, child("sleep"))
		tty.WaitFor(t, "ready: terminals true true true")
	})
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
