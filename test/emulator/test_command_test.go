package emulator_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// specsDir holds the specs `studio-bridge test` runs against the emulator:
// green (nested folders reaching a helper module through script.Parent),
// red (failing expectations and errors), broken (a spec that does not
// compile, one that throws while loading, one that passes beside them),
// hooks (planning errors, a failing beforeAll, a spec returning no
// function), slow (waits, for cancel) and timed (waits, for durations).
var specsDir, _ = filepath.Abs(filepath.Join("testdata", "specs"))

func testRun(t *testing.T, port int, wantCode int, args ...string) commands.TestData {
	t.Helper()
	return testRunIn(t, specsDir, port, wantCode, args...)
}

// testRunIn is testRun from another folder of specs.
func testRunIn(t *testing.T, dir string, port int, wantCode int, args ...string) commands.TestData {
	t.Helper()
	out, errOut, code := cliIn(t, dir, port, append([]string{"test", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("test %v exited %d, want %d:\n%s\n%s", args, code, wantCode, out, errOut)
	}
	var d commands.TestData
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("test %v: stdout is not the JSON document: %v\n%s", args, err, out)
	}
	return d
}

// checkCases checks that d reports each test of want, by name, exactly as
// want has it, but for its duration (the machine's; the timed specs check
// durations).
func checkCases(t *testing.T, d commands.TestData, want map[string]commands.TestCase) {
	t.Helper()
	got := byName(d)
	for name, w := range want {
		w.Name = name
		g := got[name]
		g.DurationMs = 0
		if g != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got[name], w)
		}
	}
}

func byName(d commands.TestData) map[string]commands.TestCase {
	m := map[string]commands.TestCase{}
	for _, tc := range d.Tests {
		m[tc.Name] = tc
	}
	return m
}

// leftovers lists what test runs left in the place: mounted folders and
// --root clones.
func leftovers(t *testing.T, port int) string {
	t.Helper()
	out, errOut, code := cli(t, port, "exec", `local found = {}
for _, s in { game:GetService("ServerStorage"), game:GetService("ReplicatedStorage") } do
	for _, c in s:GetChildren() do
		if string.find(c.Name, "StudioBridgeTest", 1, true) then table.insert(found, c:GetFullName()) end
	end
end
return table.concat(found, ",")`)
	if code != 0 {
		t.Fatalf("exec exited %d: %s %s", code, out, errOut)
	}
	return strings.Trim(strings.TrimSpace(out), `"`) // exec prints the string quoted
}

// module is a ModuleScript for placeSuite: its name and its source.
type module struct{ name, source string }

// placeSuite builds, through exec, the Folder ReplicatedStorage.<name>
// holding modules: specs already in the place, for test --root. Names and
// sources go into Luau long strings ([==[…]==]), which take them as written.
func placeSuite(t *testing.T, port int, name string, modules ...module) {
	t.Helper()
	long := func(s string) string {
		if strings.Contains(s, "]==]") || strings.HasPrefix(s, "\n") {
			t.Fatalf("placeSuite: %q does not fit a [==[ ]==] string", s)
		}
		return "[==[" + s + "]==]"
	}
	script := `local suite = Instance.new("Folder") suite.Name = ` + long(name) + "\n"
	for _, m := range modules {
		script += `do local m = Instance.new("ModuleScript") m.Name = ` + long(m.name) + " m.Source = " + long(m.source) + " m.Parent = suite end\n"
	}
	script += `suite.Parent = game:GetService("ReplicatedStorage")`
	if _, errOut, code := cli(t, port, "exec", script); code != 0 {
		t.Fatalf("placing %s: exit %d, %s", name, code, errOut)
	}
}

// usageCase is a test run that must be refused before anything runs: exit
// 2, with says on stderr.
type usageCase struct {
	args []string // after "test"
	says string
}

// checkUsageErrors runs each case from dir against the host on port, checks
// that it is refused, and that nothing is left in the place.
func checkUsageErrors(t *testing.T, dir string, port int, cases []usageCase) {
	t.Helper()
	for _, tc := range cases {
		out, errOut, code := cliIn(t, dir, port, append([]string{"test"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.says) {
			t.Errorf("%v: exit %d, stderr %q (stdout %q), want 2 and %q", tc.args, code, errOut, out, tc.says)
		}
	}
	if l := leftovers(t, port); l != "" {
		t.Fatalf("left behind: %s", l)
	}
}

func TestTestCommandAgainstTheEmulator(t *testing.T) {
	port, _, b := startWindow(t, "--quiet", "--instance", "E2E-TEST")
	waitSessions(t, b, "E2E-TEST", protocol.ContextEdit)

	t.Run("green, nested folders with a helper module", func(t *testing.T) {
		d := testRun(t, port, 0, "green")
		if d.Passed != 3 || d.Failed != 0 || d.Skipped != 1 || len(d.Tests) != 4 {
			t.Fatalf("%+v", d)
		}
		got := byName(d)
		if tc := got["strings › reaches helpers two folders up"]; tc.Status != "passed" || tc.File != "green/nested/deeper/strings.spec.luau" {
			t.Fatalf("nested spec: %+v", tc)
		}
		if tc := got["math › is skipped"]; tc.Status != "skipped" || tc.File != "green/math.spec.luau" {
			t.Fatalf("skipped: %+v", tc)
		}
	})

	t.Run("red and broken specs: failures with file, line and message", func(t *testing.T) {
		d := testRun(t, port, 1, "red", "broken")
		if d.Passed != 2 || d.Failed != 4 || d.Skipped != 0 {
			t.Fatalf("%+v", d)
		}
		checkCases(t, d, map[string]commands.TestCase{
			"broken/syntax.spec.luau":        {Status: "failed", File: "broken/syntax.spec.luau", Line: 3, Message: "broken/syntax.spec.luau:3: Expected ')' (to close '(' at column 5), got 'function'"},
			"broken/throws.spec.luau":        {Status: "failed", File: "broken/throws.spec.luau", Line: 1, Message: "broken/throws.spec.luau:1: thrown while loading"},
			"failing › compares numbers":     {Status: "failed", File: "red/failing.spec.luau", Line: 7, Message: `red/failing.spec.luau:7: Expected value "3" (number), got "2" (number) instead`},
			"failing › throws":               {Status: "failed", File: "red/failing.spec.luau", Line: 10, Message: "red/failing.spec.luau:10: boom: a, b % c"},
			"failing › passes":               {Status: "passed", File: "red/failing.spec.luau"},
			"still runs beside broken specs": {Status: "passed", File: "broken/ok.spec.lua"},
		})
	})

	t.Run("planning errors, failing hooks and a spec that returns no function", func(t *testing.T) {
		d := testRun(t, port, 1, "hooks")
		checkCases(t, d, map[string]commands.TestCase{
			"hooks/notafunction.spec.luau":         {Status: "failed", File: "hooks/notafunction.spec.luau", Message: "the spec returned a table, not a function (a TestEZ spec returns function() describe(…) end)"},
			"hooks/toplevel.spec.luau":             {Status: "failed", File: "hooks/toplevel.spec.luau", Line: 2, Message: "Error during planning: hooks/toplevel.spec.luau:2: the spec function itself fails"},
			"plans":                                {Status: "failed", File: "hooks/planning.spec.luau", Line: 4, Message: "Error during planning: hooks/planning.spec.luau:4: bad plan"},
			"with a failing beforeAll › beforeAll": {Status: "failed", File: "hooks/beforeall.spec.luau", Line: 4, Message: "beforeAll hook: hooks/beforeall.spec.luau:4: setup failed"},
		})
		if d.Failed != 4 {
			t.Fatalf("%+v", d)
		}
	})

	t.Run("each test's duration: its it function, yields included", func(t *testing.T) {
		out, errOut, code := cliIn(t, specsDir, port, "test", "--json", "timed")
		if code != 1 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
		var d commands.TestData
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("stdout is not the JSON document: %v\n%s", err, out)
		}
		checkCases(t, d, map[string]commands.TestCase{
			"timed › waits a tenth of a second": {Status: "passed", File: "timed/waits.spec.luau"},
			// the timing wrapper rethrows the test's error as it was
			"timed › fails after waiting": {Status: "failed", File: "timed/waits.spec.luau", Line: 14, Message: "timed/waits.spec.luau:14: late"},
			"timed › never runs":          {Status: "skipped", File: "timed/waits.spec.luau"},
		})
		// the test printed what its own body measured, by the same clock:
		// the reported duration holds all of it (the wait included)
		var waited int64 = -1
		for _, l := range strings.Split(errOut, "\n") {
			if _, after, ok := strings.Cut(l, "waited-ms "); ok {
				fmt.Sscan(after, &waited)
			}
		}
		got := byName(d)
		if ms := got["timed › waits a tenth of a second"].DurationMs; waited < 0 || ms < waited {
			t.Errorf("the test's body measured %d ms of itself, its duration is %d ms (stderr %q)", waited, ms, errOut)
		}
		if ms := got["timed › fails after waiting"].DurationMs; ms <= 0 {
			t.Errorf("a failed test that waited reports %d ms", ms)
		}
		if ms := got["timed › never runs"].DurationMs; ms != 0 {
			t.Errorf("a skipped test reports %d ms", ms)
		}
	})

	t.Run("github reporter and JUnit file", func(t *testing.T) {
		junit := filepath.Join(t.TempDir(), "junit.xml")
		out, errOut, code := cliIn(t, specsDir, port, "test", "red", "--reporter", "github", "--junit", junit)
		if code != 1 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
		if !strings.Contains(out, "::error file=red/failing.spec.luau,line=7,title=failing › compares numbers::red/failing.spec.luau:7: Expected value") ||
			!strings.Contains(out, "1 passed, 2 failed, 0 skipped") {
			t.Fatalf("github output:\n%s", out)
		}
		x := readFile(t, junit)
		if !strings.Contains(x, `<testsuite name="red/failing.spec.luau" tests="3" failures="2" skipped="0" time="`) {
			t.Fatalf("junit:\n%s", x)
		}
	})

	t.Run("the specs' Output lines name files, on stderr", func(t *testing.T) {
		out, errOut, code := cliIn(t, specsDir, port, "test", "broken")
		if code != 1 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
		if !strings.Contains(errOut, "broken/throws.spec.luau:1: thrown while loading") || strings.Contains(errOut, "StudioBridgeTest_") {
			t.Fatalf("stderr names the mounted instances:\n%s", errOut)
		}
		if !strings.Contains(out, "FAIL broken/throws.spec.luau\n     broken/throws.spec.luau:1\n") || !strings.Contains(out, "\n1 passed, 2 failed, 0 skipped (") {
			t.Fatalf("summary:\n%s", out)
		}
	})

	t.Run("a run too large for the plugin is refused, or runs where the plugin takes chunked requests", func(t *testing.T) {
		dir := t.TempDir()
		big := "-- " + strings.Repeat("padding ", 160<<10) + "\nreturn function() it('is big', function() end) end\n"
		if err := os.WriteFile(filepath.Join(dir, "big.spec.luau"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := cliIn(t, dir, port, "test", "--json")
		switch {
		case code == 2 && strings.Contains(errOut, "big.spec.luau is 1310775 bytes, over Studio's 200,000-character limit for a script's Source"):
			// Studio refuses a Source that long ("String too long"): the
			// run says which file, before anything runs
		case code == 0 && strings.Contains(out, `"passed":1`):
			// a place where the Source limit does not apply
		default:
			t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
		}
	})

	t.Run("nothing is left in the place", func(t *testing.T) {
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("--root runs specs already in the place, from a clone", func(t *testing.T) {
		placeSuite(t, port, "Suite",
			module{"Helper", "return { value = 42 }"},
			module{"answer.spec", "local Helper = require(script.Parent.Helper)\nreturn function()\n\tit('knows the answer', function()\n\t\texpect(Helper.value).to.equal(41)\n\tend)\nend"})
		d := testRun(t, port, 1, "--root", "ReplicatedStorage.Suite")
		if len(d.Tests) != 1 {
			t.Fatalf("%+v", d)
		}
		tc := d.Tests[0]
		if tc.Name != "knows the answer" || tc.File != "ReplicatedStorage.Suite.answer.spec" || tc.Line != 4 || !strings.HasPrefix(tc.Message, "ReplicatedStorage.Suite.answer.spec:4: Expected value \"41\"") {
			t.Fatalf("%+v", tc)
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("usage errors: no specs, no TestEZ, no root", func(t *testing.T) {
		checkUsageErrors(t, specsDir, port, []usageCase{
			{[]string{"green/shared"}, "no specs found in green/shared"},
			{[]string{"green", "--testez-path", "ReplicatedStorage.Nope"}, `TestEZ = "roblox/testez@0.4.1"`},
			{[]string{"--root", "ReplicatedStorage.Missing"}, "no such instance"},
		})
	})

	t.Run("a runner that fails in Studio removes its folder too", func(t *testing.T) {
		_, errOut, code := cli(t, port, "exec", `local m = Instance.new("ModuleScript")
m.Name = "BrokenTestEZ"
m.Source = "error('this is no TestEZ')"
m.Parent = game:GetService("ReplicatedStorage")`)
		if code != 0 {
			t.Fatalf("setup: %s", errOut)
		}
		out, errOut, code := cliIn(t, specsDir, port, "test", "green", "--testez-path", "ReplicatedStorage.BrokenTestEZ")
		if code != 1 || !strings.Contains(errOut, "the runner failed in Studio") {
			t.Fatalf("exit %d, want 1:\n%s\n%s", code, out, errOut)
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("TestEZ found in a Wally _Index", func(t *testing.T) {
		move := func(script string) {
			t.Helper()
			if _, errOut, code := cli(t, port, "exec", script); code != 0 {
				t.Fatalf("exec: %s", errOut)
			}
		}
		// Wally's layout: DevPackages._Index["roblox_testez@0.4.1"].testez
		move(`local dev = game:GetService("ReplicatedStorage").DevPackages
local index = Instance.new("Folder") index.Name = "_Index" index.Parent = dev
local pkg = Instance.new("Folder") pkg.Name = "roblox_testez@0.4.1" pkg.Parent = index
dev.TestEZ.Name = "testez" dev.testez.Parent = pkg`)
		defer move(`local dev = game:GetService("ReplicatedStorage").DevPackages
local m = dev._Index["roblox_testez@0.4.1"].testez
m.Name = "TestEZ" m.Parent = dev dev._Index:Destroy()`)
		if d := testRun(t, port, 0, "green"); d.Passed != 3 {
			t.Fatalf("%+v", d)
		}
	})

	t.Run("a run that times out is cancelled and its folder removed", func(t *testing.T) {
		_, errOut, code := cliIn(t, specsDir, port, "test", "slow", "--timeout", "2s")
		if code != 4 {
			t.Fatalf("exit %d, want 4 (timeout): %s", code, errOut)
		}
		kit.WaitFor(t, 10*time.Second, "the mounted folder to go", func() bool { return leftovers(t, port) == "" })
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// In Play, test runs in the server DataModel by default, as exec does.
// (Only edit and server are awaited: whether the Play client connects
// depends on Studio's localhost rule, which the plugin's protocol 2 work
// models.)
func TestTestCommandInPlay(t *testing.T) {
	port, _, b := startWindow(t, "--quiet", "--play", "--instance", "E2E-TEST-PLAY")
	kit.WaitFor(t, 20*time.Second, "the edit and server sessions", func() bool {
		have := map[protocol.Context]bool{}
		for _, s := range sessions(t, b) {
			if s.InstanceID == "E2E-TEST-PLAY" {
				have[s.Context] = true
			}
		}
		return have[protocol.ContextEdit] && have[protocol.ContextServer]
	})
	d := testRun(t, port, 0, "green")
	if d.Passed != 3 || d.Skipped != 1 {
		t.Fatalf("%+v", d)
	}
}
