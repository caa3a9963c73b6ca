package emulator_test

// `studio-bridge exec` end to end: output that does not come from the
// script's own print/warn (a required module, a loadstring chunk, an error
// in a spawned thread) is streamed too, errors and their stack lines on
// stderr; globals defined by one exec are visible to the next. Both with
// Studio's default deferred signals and with Workspace.SignalBehavior =
// Immediate.

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
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
			port := kit.FreePort(t)
			startServe(t, "serve", port)
			instance := "E2E-EXEC-" + strings.ToUpper(tc.behavior)
			kit.Studio(t, "studio", port, "--instance", instance, "--signal-behavior", tc.behavior, "--quiet")
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

// A script that prints more than an exec keeps, without yielding, under
// Studio's defaults (deferred signals, default LogCapacity): the repro
// `studio-bridge --json exec 'for i=1,20000 do print(i) end'`. Every line's
// MessageOut is still queued when the script ends; the emulator's VM must
// hold that (Studio does) and the plugin's caps apply: the first 10,000
// lines, or 4 MiB of them, then droppedLogs.
func TestExecOutputUpToTheCaps(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-EXEC-CAPS")

	type line struct {
		Level string `json:"level"`
		Body  string `json:"body"`
	}
	type result struct {
		Success     bool   `json:"success"`
		Logs        []line `json:"logs"`
		DroppedLogs int    `json:"droppedLogs"`
	}
	// --json: one progress line per captured Output line, then the result
	execJSON := func(script string) (progress []line, r result) {
		t.Helper()
		stdout, stderr, code := cli(t, port, "--json", "exec", script)
		if code != 0 {
			t.Fatalf("exec: exit %d, stderr %q, stdout ends %q", code, stderr, stdout[max(0, len(stdout)-200):])
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		for _, l := range lines[:len(lines)-1] {
			var p line
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatalf("progress line %q: %v", l, err)
			}
			progress = append(progress, p)
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			t.Fatalf("result line: %v", err)
		}
		return progress, r
	}

	progress, r := execJSON(`for i=1,20000 do print(i) end`)
	if !r.Success || len(r.Logs) != 10000 || r.DroppedLogs != 10000 || len(progress) != 10000 {
		t.Fatalf("20,000 lines: success %v, %d logs, droppedLogs %d, %d progress lines; want 10,000 kept and 10,000 dropped",
			r.Success, len(r.Logs), r.DroppedLogs, len(progress))
	}
	for i, l := range r.Logs {
		if want := (line{Level: "Print", Body: strconv.Itoa(i + 1)}); l != want || progress[i] != want {
			t.Fatalf("logs[%d] = %+v, progress[%d] = %+v, want %+v", i, l, i, progress[i], want)
		}
	}

	// 2 KiB lines: the 4 MiB cap comes first
	const maxBytes = 4 * 1024 * 1024
	kept, bytes := 0, 0
	for i := 1; i <= 3000 && bytes+len(strconv.Itoa(i))+1+2048 <= maxBytes; i++ {
		bytes += len(strconv.Itoa(i)) + 1 + 2048
		kept++
	}
	progress, r = execJSON(`local pad = string.rep("x", 2048) for i = 1, 3000 do print(i, pad) end`)
	got := 0
	for _, l := range r.Logs {
		got += len(l.Body)
	}
	if !r.Success || len(r.Logs) != kept || r.DroppedLogs != 3000-kept || len(progress) != kept || got != bytes {
		t.Fatalf("3,000 lines of 2 KiB: success %v, %d logs (%d bytes), droppedLogs %d, %d progress lines; want %d lines (%d bytes), %d dropped",
			r.Success, len(r.Logs), got, r.DroppedLogs, len(progress), kept, bytes, 3000-kept)
	}

	// the window is still there
	if stdout, stderr, code := cli(t, port, "exec", `print("still here")`); code != 0 || stdout != "still here\n" {
		t.Errorf("exec afterwards: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
