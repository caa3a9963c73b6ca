package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/ptytest"
)

func studioPlugin(t *testing.T, port string) {
	t.Helper()
	n, _ := strconv.Atoi(port)
	p := fakeplugin.Start(fakeplugin.Config{Port: n, InstanceID: "A", PlaceName: "Place", Handler: fakeplugin.Studio,
		RetryDelays: []time.Duration{50 * time.Millisecond}})
	t.Cleanup(p.Close)
}

// TestTerminalPiped drives the REPL through a pipe: the line-by-line mode.
func TestTerminalPiped(t *testing.T) {
	port := freePort(t)
	studioPlugin(t, port)
	in := strings.Join([]string{
		"for i = 1, 2 do",
		"  print(i)",
		"end",
		".state",
		".logs 5",
		".query Workspace.SpawnLocation",
		".query Workspace.Nope",
		"error('x')",
		".context server",
		".nope",
		".help",
		".disconnect",
		"print(1)",
		".exit",
	}, "\n") + "\n"
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code := Run(ctx, []string{"studio-bridge", "--port", port, "terminal"}, IO{In: strings.NewReader(in), Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	got := out.String()
	for _, want := range []string{
		"Attached to Place [edit]",
		"Place [edit]> ",
		"...> ", // the for loop continued
		"one\n", // exec output streamed inline
		"[Warning] two",
		"42\nVector3(1, 2, 3)\n",
		"State:  Edit",
		"[Warning] careful",
		"Position = Vector3(0, 4, 0)",
		"No instance found at path: game.Workspace.Nope",
		"script error: Script:2: boom",
		"this Studio window has no server session",
		"Unknown command .nope",
		".logs [count]",
		".run <file>",
		"Detached.",
		"Not attached to a session",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestTerminalPTY types into a real pseudo-terminal: line editing, Enter
// continuing an unfinished chunk, Ctrl-C cancelling a running script and
// clearing a line, Ctrl-D exiting.
func TestTerminalPTY(t *testing.T) {
	port := freePort(t)
	studioPlugin(t, port)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	master, slave := ptytest.Open(t)
	defer master.Close()
	scr := ptytest.Record(master)
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"studio-bridge", "--port", port, "terminal"}, IO{In: slave, Out: slave, Err: slave})
	}()
	typeKeys := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	scr.WaitFor(t, "Place [edit]> ")
	typeKeys("if true then\r")
	scr.WaitFor(t, "...> ")
	typeKeys("print('hi')\rend\r")
	scr.WaitFor(t, "[Warning] two")
	scr.WaitFor(t, "Vector3(1, 2, 3)")

	typeKeys("task.wait(1e9) -- wait\r") // the fake Studio never finishes scripts that say wait
	time.Sleep(200 * time.Millisecond)
	typeKeys("\x03")
	scr.WaitFor(t, "cancelled")

	typeKeys("print('never')\x03")
	typeKeys("\x1b[A") // up arrow recalls history
	scr.WaitFor(t, "task.wait(1e9) -- wait")
	typeKeys("\x03.state\r")
	scr.WaitFor(t, "State:  Edit")

	typeKeys("\x04")
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, scr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Ctrl-D did not exit:\n%s", scr.String())
	}
	slave.Close()
	master.Close()
	select {
	case <-scr.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("screen reader did not stop")
	}
	if !strings.Contains(scr.String(), "\x1b[33m") {
		t.Errorf("no colour on a terminal:\n%q", scr.String())
	}
	if _, err := os.Stat(os.Getenv("XDG_CONFIG_HOME") + "/studio-bridge/terminal_history"); err != nil {
		t.Errorf("history not saved: %v", err)
	}
}

// TestTerminalTimeoutFlag: the global --timeout bounds the terminal's
// commands as it bounds one-shot ones.
func TestTerminalTimeoutFlag(t *testing.T) {
	port := freePort(t)
	studioPlugin(t, port)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code := Run(ctx, []string{"studio-bridge", "--port", port, "--timeout", "300ms", "terminal"},
		IO{In: strings.NewReader("task.wait(60)\n.exit\n"), Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	if !strings.Contains(out.String(), "Script execution timed out after 300ms.") {
		t.Fatalf("no timeout after 300ms:\n%s", out.String())
	}
}

// TestTerminalAttachesLikeExecInPlayMode: with a Studio window in Play mode
// the terminal attaches to the server DataModel, where exec runs scripts by
// default; --context picks another.
func TestTerminalAttachesLikeExecInPlayMode(t *testing.T) {
	port := freePort(t)
	n, _ := strconv.Atoi(port)
	for _, c := range []protocol.Context{protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient} {
		p := fakeplugin.Start(fakeplugin.Config{Port: n, InstanceID: "A", PlaceName: "Place", Context: c, State: protocol.StatePlay,
			Handler: fakeplugin.Studio, RetryDelays: []time.Duration{50 * time.Millisecond}})
		t.Cleanup(p.Close)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Attached to Place [server]"},
		{[]string{"--context", "client"}, "Attached to Place [client]"},
		{[]string{"--context", "edit"}, "Attached to Place [edit]"},
	} {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		args := append([]string{"studio-bridge", "--port", port, "terminal", "--wait", "10s"}, tc.args...)
		code := Run(ctx, args, IO{In: strings.NewReader(".exit\n"), Out: &out, Err: &errb})
		cancel()
		if code != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("terminal %v: exit %d, want %q in:\n%s%s", tc.args, code, tc.want, out.String(), errb.String())
		}
	}
}
