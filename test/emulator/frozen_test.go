package emulator_test

// Issue 25 item 12: a script that never yields. A Luau plugin cannot
// interrupt its own thread, so Studio freezes until the script yields, its
// plugin's heartbeats included; the host tells the exec's caller so, and the
// emulator, frozen exactly as Studio is, still ends on SIGTERM and SIGINT
// (its window runs in a worker thread, src/supervisor.mjs).

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestFrozenExecIsNamedAndTheEmulatorStillStops(t *testing.T) {
	requireSetup(t)
	port := kit.FreePort(t)
	startServe(t, "serve", port)
	b := connect(t, port)
	// Two windows, one per signal, frozen at the same time: the host needs
	// about 30 s (missed heartbeats, then the resume grace) to give up on
	// each, and they wait in parallel.
	signals := []struct {
		name, instance string
		send           func(p *proc) error
	}{
		{"SIGTERM", "E2E-FROZEN-TERM", func(p *proc) error { p.Terminate(t); return nil }},
		{"SIGINT", "E2E-FROZEN-INT", func(p *proc) error { return kit.Interrupt(p.Cmd) }},
	}
	// started together (kit.Studio would wait for each in turn)
	windows := make([]*proc, len(signals))
	for i, s := range signals {
		windows[i] = startProc(t, "studio-"+s.name, nodePath, "bin/studio.mjs", "--port", strconv.Itoa(port), "--instance", s.instance)
	}
	for i, s := range signals {
		kit.WaitFor(t, 60*time.Second, s.instance+" to be ready", func() bool {
			if !windows[i].Running() {
				t.Fatalf("%s exited before it was ready; output:\n%s", s.instance, windows[i].Stdout.String())
			}
			return strings.Contains(windows[i].Stdout.String(), "emulator: window ready")
		})
		waitSessions(t, b, s.instance, protocol.ContextEdit)
	}

	type outcome struct {
		stdout, stderr string
		code           int
	}
	outcomes := make([]outcome, len(signals))
	var wg sync.WaitGroup
	for i, s := range signals {
		// made here: userCmd may fail the test, which only this goroutine may do
		cmd := userCmd(t, t.TempDir(), port, "exec", "-s", s.instance, `print("spinning") while true do end`)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errOut kit.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			code := -1
			if err := cmd.Run(); err == nil || cmd.ProcessState != nil {
				code = cmd.ProcessState.ExitCode()
			}
			outcomes[i] = outcome{out.String(), errOut.String(), code}
		}()
	}
	wg.Wait()

	for i, s := range signals {
		o, w := outcomes[i], windows[i]
		if !strings.Contains(w.Stdout.String(), "[edit] spinning") {
			t.Errorf("%s: the window never ran the script; its output:\n%s", s.instance, w.Stdout.String())
		}
		// UNKNOWN_OUTCOME (exit 3): it may still be running, and may or may
		// not have done what it was for.
		if o.code != 3 || !strings.Contains(o.stderr, "the script has not yielded for") ||
			!strings.Contains(o.stderr, "Studio is frozen until it does") {
			t.Errorf("%s: exec in a frozen window exited %d; want 3 saying the script has not yielded\nstdout %q\nstderr %q",
				s.instance, o.code, o.stdout, o.stderr)
		}
	}

	// The frozen windows still end on a signal; the generous bound is a
	// ceiling for a loaded machine, not a speed target.
	for i, s := range signals {
		if err := s.send(windows[i]); err != nil {
			t.Fatalf("send %s: %v", s.name, err)
		}
	}
	for i, s := range signals {
		w := windows[i]
		code := w.Wait(t, 30*time.Second)
		// (Windows sends both as Ctrl-Break, SIGBREAK to Node)
		if want := "the window did not take up SIG"; code != 1 || !strings.Contains(w.Stdout.String(), want) {
			t.Errorf("%s: the emulator exited %d after %s; want 1 saying %q (the window was frozen); its output:\n%s",
				s.instance, code, s.name, want, w.Stdout.String())
		}
	}
}
