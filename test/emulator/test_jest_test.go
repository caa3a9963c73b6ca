package emulator_test

// test --runner jest end to end: the emulator's Jest place
// (fixtures/jest.json: the pinned npm @rbxts/jest, Jest-Lua 3.13, laid out
// as roblox-ts does) runs spec files from disk through Jest-Lua's runCLI,
// reported through the same document as TestEZ runs.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

var jestDir, _ = filepath.Abs(filepath.Join("testdata", "jest"))

func TestTestJest(t *testing.T) {
	fixture, _ := filepath.Abs(filepath.Join("fixtures", "jest.json"))
	port, _, b := startWindow(t, "--quiet", "--instance", "E2E-JEST", "--fixture", fixture)
	waitSessions(t, b, "E2E-JEST", protocol.ContextEdit)
	jest := func(t *testing.T, code int, args ...string) commands.TestData {
		t.Helper()
		return testRunIn(t, jestDir, port, code, append([]string{"--runner", "jest"}, args...)...)
	}

	t.Run("green, found at roblox-ts's usual place", func(t *testing.T) {
		d := jest(t, 0, "green")
		want := map[string]commands.TestCase{
			"math › adds":             {Status: "passed", File: "green/math.spec.luau"},
			"math › reaches a helper": {Status: "passed", File: "green/math.spec.luau"},
			"math › is skipped":       {Status: "skipped", File: "green/math.spec.luau"},
		}
		if d.Passed != 2 || d.Failed != 0 || d.Skipped != 1 || len(d.Tests) != 3 {
			t.Fatalf("%+v", d)
		}
		got := byName(d)
		for name, w := range want {
			w.Name = name
			if got[name] != w {
				t.Errorf("%s:\n got %+v\nwant %+v", name, got[name], w)
			}
		}
	})

	t.Run("red: failures with file, line and message; a spec that does not compile", func(t *testing.T) {
		d := jest(t, 1, "red", "--jest-path", "ReplicatedStorage.rbxts_include.node_modules.@rbxts-js.Jest")
		got := byName(d)
		for name, w := range map[string]commands.TestCase{
			"failing › passes":           {Status: "passed", File: "red/failing.spec.luau"},
			"failing › compares numbers": {Status: "failed", File: "red/failing.spec.luau", Line: 9, Message: "red/failing.spec.luau:9: expect(received).toBe(expected) -- Object.is equality\n\nExpected: 3\nReceived: 2"},
			"failing › throws":           {Status: "failed", File: "red/failing.spec.luau", Line: 12, Message: "red/failing.spec.luau:12: boom"},
			"red/syntax.spec.luau":       {Status: "failed", File: "red/syntax.spec.luau", Line: 4, Message: "red/syntax.spec.luau:4: Expected '(' when parsing function, got <eof>"},
		} {
			w.Name = name
			if got[name] != w {
				t.Errorf("%s:\n got %+v\nwant %+v", name, got[name], w)
			}
		}
		if d.Passed != 1 || d.Failed != 3 {
			t.Fatalf("%+v", d)
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("the github reporter", func(t *testing.T) {
		out, errOut, code := cliIn(t, jestDir, port, "test", "--runner", "jest", "--reporter", "github", "red")
		if code != 1 || !strings.Contains(out, "::error file=red/failing.spec.luau,line=9,title=failing › compares numbers::red/failing.spec.luau:9: expect(received)") {
			t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			says string
		}{
			{[]string{"--runner", "jest", "green", "--jest-path", "ReplicatedStorage.Nope"}, `Jest = "jsdotlua/jest@3.10.0"`},
			{[]string{"--runner", "jest", "green", "--testez-path", "ReplicatedStorage.TestEZ"}, "--testez-path is for TestEZ"},
			{[]string{"green", "--jest-path", "ReplicatedStorage.Jest"}, "--jest-path only applies with --runner jest"},
			{[]string{"--runner", "mocha", "green"}, "mocha"},
		} {
			out, errOut, code := cliIn(t, jestDir, port, append([]string{"test"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.says) {
				t.Errorf("%v: exit %d, stderr %q (stdout %q), want 2 and %q", tc.args, code, errOut, out, tc.says)
			}
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})
}
