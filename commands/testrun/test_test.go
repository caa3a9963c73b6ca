package testrun

import (
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	segjson "github.com/segmentio/encoding/json"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// -update rewrites the golden files (kit.Golden reads it).
var _ = flag.Bool("update", false, "rewrite golden files")

// sampleTests is a run with every kind of outcome and the characters each
// report must escape.
func sampleTests() TestData {
	d := TestData{DurationMs: 1234, Tests: []TestCase{
		{Name: "tests/broken.spec.luau", Status: "failed", File: "tests/broken.spec.luau", Line: 3, Message: "tests/broken.spec.luau:3: Expected ')' (to close '(' at column 5), got 'function'"},
		{Name: "math › adds", Status: "passed", File: "tests/math.spec.luau", DurationMs: 12},
		{Name: "math › compares, with: punctuation", Status: "failed", File: "tests/math.spec.luau", Line: 12, Message: "tests/math.spec.luau:12: Expected value \"3\" (number), got \"2\" (number) instead\n100% <sure> & more", DurationMs: 1500},
		{Name: "math › is skipped", Status: "skipped", File: "tests/math.spec.luau"},
		{Name: "no line", Status: "failed", File: "tests/x,y.spec.luau", Message: "afterAll hook: oops"},
	}}
	d.Count()
	return d
}

// golden checks got against testdata/name (kit.Golden; -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	kit.Golden(t, filepath.Join("testdata", name), got)
}

func TestTestReportsGolden(t *testing.T) {
	t.Parallel()
	d := sampleTests()
	if d.Passed != 1 || d.Failed != 3 || d.Skipped != 1 {
		t.Fatalf("counts: %+v", d)
	}
	// exactly what `studio-bridge test --json` prints (cli/command.go's
	// printResult: segmentio's encoder, map keys sorted, no HTML escaping)
	js, err := segjson.Append(nil, d, segjson.SortMapKeys)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "test-report.json.golden", append(js, '\n'))
	golden(t, "test-report.github.golden", []byte(d.GitHub()))
	golden(t, "test-report.junit.golden", d.JUnit())
	golden(t, "test-report.text.golden", []byte(d.Summary()))
	// the closing error counts as the summary does: skipped tests too
	if !strings.Contains(d.Summary(), "1 passed, 3 failed, 1 skipped") || d.FailureLine() != "3 of 5 tests failed (1 skipped)" {
		t.Fatalf("summary %q, then %q", d.Summary(), d.FailureLine())
	}
	if got := (TestData{Passed: 2, Failed: 1}).FailureLine(); got != "1 of 3 tests failed" {
		t.Fatalf("no skipped: %q", got)
	}
}

// GitHub's workflow commands: %, CR and LF in data; also : and , in
// property values (actions/toolkit command.ts escapeData/escapeProperty).
func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	if got := ghData("a%b\r\nc:d,e"); got != "a%25b%0D%0Ac:d,e" {
		t.Fatalf("data: %q", got)
	}
	if got := ghProperty("a%b\r\nc:d,e"); got != "a%25b%0D%0Ac%3Ad%2Ce" {
		t.Fatalf("property: %q", got)
	}
}

// Under a budget every test stays; messages are cut, each marked.
func TestTestDataFitCutsMessages(t *testing.T) {
	t.Parallel()
	d := TestData{Tests: []TestCase{{Name: "a", Status: "passed", File: "f"}}}
	for i := 0; i < 20; i++ {
		d.Tests = append(d.Tests, TestCase{Name: "t", Status: "failed", File: "f", Message: strings.Repeat("é", 2000)})
	}
	d.Count()
	fit := d.fit(8 << 10)
	b, _ := json.Marshal(fit)
	if len(b) > 8<<10 {
		t.Fatalf("%d bytes over an 8 KiB budget", len(b))
	}
	if len(fit.Tests) != 21 || fit.Failed != 20 {
		t.Fatalf("tests dropped: %d", len(fit.Tests))
	}
	for _, tc := range fit.Tests[1:] {
		if !strings.HasSuffix(tc.Message, cutMark) || !json.Valid([]byte(`"`+tc.Message+`"`)) {
			t.Fatalf("message not cut cleanly: %q", tc.Message)
		}
	}
	if d.Tests[1].Message != strings.Repeat("é", 2000) {
		t.Fatal("fit changed the original")
	}
	if same := d.fit(1 << 30); len(same.Tests[1].Message) != 4000 {
		t.Fatal("a document within the budget was cut")
	}
}

// Specs and the helpers beside them are mounted with their folders; Wally
// package folders, hidden folders and Scripts are not.
func TestSpecTreeKeepsFolders(t *testing.T) {
	dir := kit.Files(t, map[string]string{
		"tests/a.spec.luau":               "return function() end",
		"tests/shared/Helper.luau":        "return {}",
		"tests/nested/deep/b.spec.lua":    "return function() end",
		"tests/lib/init.luau":             "return {}",
		"tests/lib/child.luau":            "return 1",
		"tests/run.server.luau":           "print('would run')",
		"tests/Packages/TestEZ/init.lua":  "return {}",
		"tests/.git/x.spec.luau":          "return function() end",
		"tests/node_modules/y.spec.luau":  "return function() end",
		"tests/README.md":                 "not Luau",
		"elsewhere/ignored.spec.luau":     "return function() end",
		"tests/nested/deep/notes.txt.lua": "return 2",
	})
	t.Chdir(dir)
	nodes, specs, _, err := specTree(SpecScope{}, []string{"tests"})
	if err != nil {
		t.Fatal(err)
	}
	if specs != 2 {
		t.Fatalf("%d specs", specs)
	}
	got := listTree(nodes)
	want := strings.Join([]string{
		"/a.spec ModuleScript tests/a.spec.luau spec",
		"/lib ModuleScript tests/lib/init.luau",
		"/lib/child ModuleScript tests/lib/child.luau",
		"/nested Folder ",
		"/nested/deep Folder ",
		"/nested/deep/b.spec ModuleScript tests/nested/deep/b.spec.lua spec",
		"/nested/deep/notes.txt ModuleScript tests/nested/deep/notes.txt.lua",
		"/shared Folder ",
		"/shared/Helper ModuleScript tests/shared/Helper.luau",
	}, "\n")
	if got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
}

func TestSpecTreeRefuses(t *testing.T) {
	dir := kit.Files(t, map[string]string{
		"a/x.spec.luau": "return function() end",
		"a/x.spec.lua":  "return function() end",
		"b/Helper.luau": "return {}",
		"c/bin.luau":    "\x00\x01",
	})
	t.Chdir(dir)
	for _, tc := range []struct {
		paths []string
		says  string
	}{
		{[]string{"nope"}, "nope does not exist"},
		{[]string{"b/Helper.luau"}, "is not a spec"},
		{[]string{"a"}, "would be the same ModuleScript"},
		{[]string{"c"}, "not UTF-8 text"},
	} {
		_, _, _, err := specTree(SpecScope{}, tc.paths)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("%v: %v, want %q", tc.paths, err, tc.says)
		}
	}
	// no specs at all is ErrNoSpecs, which the command words
	if _, err := Script(Config{Paths: []string{"b"}}); !errors.Is(err, ErrNoSpecs) {
		t.Fatalf("no specs: %v", err)
	}
}

// LuauString's output is a Luau literal for any bytes.
func TestLuauString(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	LuauString(&b, "a\"b\\c\nd\x00e\x7fé]]")
	if got := b.String(); got != `"a\"b\\c\nd\000e\127é]]"` {
		t.Fatalf("%s", got)
	}
}

// Messages name files, not the mounted instances, and lose TestEZ's
// traceback lines.
func TestTestMessageCleanup(t *testing.T) {
	t.Parallel()
	names := map[string]string{
		"ServerStorage.StudioBridgeTest_1.tests":         "tests/init.luau",
		"ServerStorage.StudioBridgeTest_1.tests.a.spec":  "tests/a.spec.luau",
		"ServerStorage.StudioBridgeTest_1.tests.Helpers": "tests/Helpers.luau",
	}
	msg := "ServerStorage.StudioBridgeTest_1.tests.a.spec:4: Expected x\nsecond line of the message\nReplicatedStorage.DevPackages.TestEZ.Expectation:47 function assertLevel\nServerStorage.StudioBridgeTest_1.tests.a.spec:4\nStudioBridgeTest:383"
	got := dropFrames(RenameInstances(msg, names))
	if got != "tests/a.spec.luau:4: Expected x\nsecond line of the message" {
		t.Fatalf("%q", got)
	}
}

// A spec named alone is mounted with its whole folder, so its neighbours
// (script.Parent.Strings) are there, and only it runs; a folder named beside
// it still runs all of its specs.
func TestSpecTreeOneSpecBringsItsFolder(t *testing.T) {
	dir := kit.Files(t, map[string]string{
		"src/util/Strings.luau":      "return {}",
		"src/util/Strings.spec.luau": "return function() end",
		"src/util/Words.spec.luau":   "return function() end",
		"src/util/sub/Deep.luau":     "return {}",
		"other/c.spec.luau":          "return function() end",
	})
	t.Chdir(dir)
	nodes, specs, _, err := specTree(SpecScope{}, []string{"src/util/Strings.spec.luau"})
	if err != nil {
		t.Fatal(err)
	}
	got := listTree(nodes)
	want := strings.Join([]string{
		"/Strings ModuleScript src/util/Strings.luau",
		"/Strings.spec ModuleScript src/util/Strings.spec.luau spec",
		"/Words.spec ModuleScript src/util/Words.spec.luau",
		"/sub Folder ",
		"/sub/Deep ModuleScript src/util/sub/Deep.luau",
	}, "\n")
	if specs != 1 || got != want {
		t.Fatalf("%d specs, tree:\n%s\nwant 1 and:\n%s", specs, got, want)
	}
	if _, specs, _, err = specTree(SpecScope{}, []string{"src/util/Strings.spec.luau", "src"}); err != nil || specs != 2 {
		t.Fatalf("with its folder named too: %d specs, %v; want both of src/util", specs, err)
	}
}

// listTree lists a mount tree one node a line: its path, kind, file and
// whether it is a spec.
func listTree(nodes []*mountNode) string {
	var lines []string
	var walk func(n *mountNode, at string)
	walk = func(n *mountNode, at string) {
		at += "/" + n.Name
		lines = append(lines, at+" "+n.Kind+" "+n.File+map[bool]string{true: " spec"}[n.Spec])
		for _, c := range n.Children {
			walk(c, at)
		}
	}
	for _, n := range nodes {
		walk(n, "")
	}
	return strings.Join(lines, "\n")
}
