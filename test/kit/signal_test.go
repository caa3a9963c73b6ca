package kit

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"testing"
	"time"
)

// signalChild is the test binary as the child of the signal tests:
// "interrupt" says "ready", then exits 7 once it sees os.Interrupt (within
// a minute; 1 if it never does); "echo" answers each line of stdin with
// "echo " and the line.
func signalChild(what string) {
	if what == "interrupt" {
		got := make(chan os.Signal, 1)
		signal.Notify(got, os.Interrupt)
		_, _ = os.Stdout.WriteString("ready\n")
		select {
		case <-got:
			os.Exit(7)
		case <-time.After(time.Minute):
			os.Exit(1)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		_, _ = os.Stdout.WriteString("echo " + in.Text() + "\n")
	}
	os.Exit(0)
}

// self is the path of the test binary, to run it as a child.
func self(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// TestInterrupt: a child prepared with Interruptible sees Interrupt as
// os.Interrupt (it exits with the code that says so); one that was not
// prepared is refused with an error naming Interruptible, and so is one
// not started.
func TestInterrupt(t *testing.T) {
	exe := self(t)
	cmd := exec.Command(exe)
	cmd.Env = ChildEnv(t, childEnvKey+"=interrupt")
	var out, errOut Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	Interruptible(cmd)
	if err := Interrupt(cmd); err == nil || !strings.Contains(err.Error(), "not been started") {
		t.Fatalf("Interrupt before Start: %v; want an error saying so", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	WaitFor(t, 30*time.Second, "the child to watch for os.Interrupt", func() bool { return out.String() == "ready\n" })
	if code := InterruptAndWait(t, cmd, 30*time.Second); code != 7 {
		t.Fatalf("exit %d, want 7 (the child saw os.Interrupt); stderr: %s", code, errOut.String())
	}

	plain := exec.Command(exe)
	plain.Env = ChildEnv(t, childEnvKey+"=interrupt")
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plain.Process.Kill(); _ = plain.Wait() })
	if err := Interrupt(plain); err == nil || !strings.Contains(err.Error(), "kit.Interruptible") {
		t.Fatalf("Interrupt of a command not prepared: %v; want an error naming kit.Interruptible", err)
	}
}

// TestSuspendResume: a suspended child answers nothing, and once resumed
// answers again, the line sent while it was suspended first.
func TestSuspendResume(t *testing.T) {
	p := Start(t, "echo", Options{Stdin: true, Env: []string{childEnvKey + "=echo"}}, self(t))
	answered := func(line string) func() bool {
		return func() bool { return strings.Contains(p.Stdout.String(), "echo "+line+"\n") }
	}
	p.Send(t, "one")
	WaitFor(t, 30*time.Second, "the child to answer", answered("one"))

	if err := Suspend(p.PID()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Resume(p.PID()) }) // runs before Start's cleanup stops it
	p.Send(t, "two")
	time.Sleep(500 * time.Millisecond)
	if answered("two")() {
		t.Fatalf("the suspended child answered: %q", p.Stdout.String())
	}

	if err := Resume(p.PID()); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, 30*time.Second, "the resumed child to answer", answered("two"))
}
