package emulator_test

// test --runner jest end to end: the emulator's Jest place
// (fixtures/jest.json: the pinned npm @rbxts/jest, Jest-Lua 3.13, laid out
// as roblox-ts does) runs spec files from disk through Jest-Lua's runCLI,
// reported through the same document as TestEZ runs.

import (
	"encoding/json"
	"os"
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
		if d.Passed != 2 || d.Failed != 0 || d.Skipped != 1 || len(d.Tests) != 3 {
			t.Fatalf("%+v", d)
		}
		checkCases(t, d, map[string]commands.TestCase{
			"math › adds":             {Status: "passed", File: "green/math.spec.luau"},
			"math › reaches a helper": {Status: "passed", File: "green/math.spec.luau"},
			"math › is skipped":       {Status: "skipped", File: "green/math.spec.luau"},
		})
	})

	t.Run("red: failures with file, line and message; a spec that does not compile", func(t *testing.T) {
		d := jest(t, 1, "red", "--jest-path", "ReplicatedStorage.rbxts_include.node_modules.@rbxts-js.Jest")
		checkCases(t, d, map[string]commands.TestCase{
			"failing › passes":           {Status: "passed", File: "red/failing.spec.luau"},
			"failing › compares numbers": {Status: "failed", File: "red/failing.spec.luau", Line: 9, Message: "red/failing.spec.luau:9: expect(received).toBe(expected) -- Object.is equality\n\nExpected: 3\nReceived: 2"},
			"failing › throws":           {Status: "failed", File: "red/failing.spec.luau", Line: 12, Message: "red/failing.spec.luau:12: boom"},
			"red/syntax.spec.luau":       {Status: "failed", File: "red/syntax.spec.luau", Line: 4, Message: "red/syntax.spec.luau:4: Expected '(' when parsing function, got <eof>"},
		})
		if d.Passed != 1 || d.Failed != 3 {
			t.Fatalf("%+v", d)
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("one spec file runs with its folder mounted, and only it runs", func(t *testing.T) {
		// red/ holds failing.spec and syntax.spec: Jest is handed a
		// testPathPattern naming failing.spec alone
		d := jest(t, 1, "red/failing.spec.luau")
		checkCases(t, d, map[string]commands.TestCase{
			"failing › passes":           {Status: "passed", File: "red/failing.spec.luau"},
			"failing › compares numbers": {Status: "failed", File: "red/failing.spec.luau", Line: 9, Message: "red/failing.spec.luau:9: expect(received).toBe(expected) -- Object.is equality\n\nExpected: 3\nReceived: 2"},
			"failing › throws":           {Status: "failed", File: "red/failing.spec.luau", Line: 12, Message: "red/failing.spec.luau:12: boom"},
		})
		if d.Passed != 1 || d.Failed != 2 || len(d.Tests) != 3 {
			t.Fatalf("want failing.spec's three tests only (not syntax.spec): %+v", d)
		}
		// a spec alone in its folder, requiring a neighbour module
		d = jest(t, 0, "green/math.spec.luau")
		if d.Passed != 2 || d.Skipped != 1 || len(d.Tests) != 3 {
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

	t.Run("--root runs Jest specs already in the place, from a clone", func(t *testing.T) {
		placeSuite(t, port, "JestSuite",
			module{"answer.spec", `local G = require(game.ReplicatedStorage.rbxts_include.node_modules["@rbxts-js"].JestGlobals)` + "\nG.it(\"knows the answer\", function()\n\tG.expect(41).toBe(42)\nend)"})
		d := jest(t, 1, "--root", "ReplicatedStorage.JestSuite")
		if len(d.Tests) != 1 {
			t.Fatalf("%+v", d)
		}
		if tc := d.Tests[0]; tc.Name != "knows the answer" || tc.File != "ReplicatedStorage.JestSuite.answer.spec" || tc.Line != 3 ||
			!strings.HasPrefix(tc.Message, "ReplicatedStorage.JestSuite.answer.spec:3: expect(received).toBe(expected)") {
			t.Fatalf("%+v", tc)
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("in a playtest without LoadStringEnabled Jest-Lua cannot load specs: said, exit 2", func(t *testing.T) {
		out, errOut, code := cliIn(t, jestDir, port, "test", "--runner", "jest", "--play", "green")
		if code != 2 || !strings.Contains(errOut, "turn on ServerScriptService.LoadStringEnabled") {
			t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
		}
		backInEdit(t, b, "E2E-JEST")
	})

	t.Run("usage errors", func(t *testing.T) {
		checkUsageErrors(t, jestDir, port, []usageCase{
			{[]string{"--runner", "jest", "green", "--jest-path", "ReplicatedStorage.Nope"}, `Jest = "jsdotlua/jest@3.10.0"`},
			{[]string{"--runner", "jest", "green", "--testez-path", "ReplicatedStorage.TestEZ"}, "--testez-path is for TestEZ"},
			{[]string{"green", "--jest-path", "ReplicatedStorage.Jest"}, "--jest-path only applies with --runner jest"},
			{[]string{"--runner", "mocha", "green"}, "mocha"},
		})
	})
}

// With ServerScriptService.LoadStringEnabled, Jest-Lua runs in a playtest's
// server: green and red, and the window is back in Edit after each.
func TestTestJestPlay(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("fixtures", "jest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx map[string]any
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	fx["loadStringEnabled"] = true
	fixture := filepath.Join(t.TempDir(), "jest-loadstring.json")
	if err := os.WriteFile(fixture, mustJSON(fx), 0o644); err != nil {
		t.Fatal(err)
	}
	port, _, b := startWindow(t, "--quiet", "--instance", "E2E-JEST-PLAY", "--fixture", fixture)
	waitSessions(t, b, "E2E-JEST-PLAY", protocol.ContextEdit)

	d := testRunIn(t, jestDir, port, 0, "--runner", "jest", "--play", "green")
	if d.Passed != 2 || d.Skipped != 1 {
		t.Fatalf("green: %+v", d)
	}
	backInEdit(t, b, "E2E-JEST-PLAY")
	d = testRunIn(t, jestDir, port, 1, "--runner", "jest", "--run", "red")
	if d.Failed != 3 || byName(d)["failing › compares numbers"].Line != 9 {
		t.Fatalf("red: %+v", d)
	}
	backInEdit(t, b, "E2E-JEST-PLAY")
}
