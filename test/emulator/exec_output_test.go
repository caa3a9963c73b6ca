package emulator_test

// `studio-bridge exec` end to end: output that does not come from the
// script's own print/warn (a required module, a loadstring chunk, an error
// in a spawned thread) is streamed too, errors and their stack lines on
// stderr; globals defined by one exec are visible to the next. Both with
// Studio's default deferred signals and with Workspace.SignalBehavior =
// Immediate.

import (
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestExecStreamsAllOutputAndKeepsGlobals(t *testing.T) {
	requireSetup(t)
	for _, tc := range []struct {
		behavior string
		stdout   string // the module repro's stdout
	}{
		// deferred: MessageOut lines arrive when the script next yields (here:
		// when it has ended), after its own "top"
		{"Deferred", "top\nfrom module\nmodule fn\ninner\n1\n"},
		{"Immediate", "from module\nmodule fn\ninner\ntop\n1\n"},
	} {
		t.Run(tc.behavior, func(t *testing.T) {
			port := freePort(t)
			startServe(t, "serve", port)
			instance := "E2E-EXEC-" + strings.ToUpper(tc.behavior)
			startStudio(t, "studio", port, "--instance", instance, "--signal-behavior", tc.behavior, "--quiet")
			b := connect(t, port)
			waitSessions(t, b, instance, protocol.ContextEdit)

			stdout, stderr, code := cli(t, port, "exec",
				`local m=Instance.new("ModuleScript"); m.Source="print(\"from module\") return function() print(\"module fn\") end"; m.Parent=workspace; require(m)(); loadstring('print("inner")')(); print("top"); return 1`)
			if code != 0 || stdout != tc.stdout || stderr != "" {
				t.Errorf("module exec: exit %d\nstdout %q\nwant   %q\nstderr %q", code, stdout, tc.stdout, stderr)
			}

			stdout, stderr, code = cli(t, port, "exec", `task.spawn(function() error("bg err") end) task.wait(0.2) print("after")`)
			if code != 0 || !strings.Contains(stderr, "Script:1: bg err") || stdout != "after\n" ||
				!strings.Contains(stderr, "Stack Begin") {
				t.Errorf("spawned error: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
			}

			if stdout, stderr, code = cli(t, port, "exec", `function g(x) return x*2 end local hidden = 1`); code != 0 {
				t.Fatalf("defining g: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			stdout, stderr, code = cli(t, port, "exec", `print(g(4), hidden)`)
			if code != 0 || stdout != "8 nil\n" {
				t.Errorf("calling g from the next exec: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}
