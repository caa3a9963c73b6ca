package emulator_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// test --changed-since against the real runner and TestEZ: from disk, the
// specs neither changed nor requiring a changed module are left out (the
// project is commands/testrun/testdata/changed in a git repository, with
// its Rojo source map); in the place, CONFIG.skip leaves specs out, also of
// the discovery list, and a run left with none is an empty one.
func TestTestChangedSince(t *testing.T) {
	port, _, b := startWindow(t, "--quiet", "--instance", "E2E-CHANGED")
	waitSessions(t, b, "E2E-CHANGED", protocol.ContextEdit)

	t.Run("spec files from disk", func(t *testing.T) {
		dir := kit.GitRepo(t, kit.ReadTree(t, filepath.Join("..", "..", "commands", "testrun", "testdata", "changed")))
		kit.Git(t, dir, "tag", "base")
		util := filepath.Join(dir, "src", "shared", "Util.luau")
		if err := os.WriteFile(util, []byte("return { double = function(n) return n + n end }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		kit.Git(t, dir, "commit", "-q", "-am", "util changes")
		mine := filepath.Join(dir, "src", "shared", "Mine.spec.luau")
		if err := os.WriteFile(mine, []byte("return function()\n\tit(\"changed\", function() end)\nend\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := cliIn(t, dir, port, "test", "--json", "--changed-since", "base", "src")
		if code != 0 {
			t.Fatalf("exit %d: %s\n%s", code, out, errOut)
		}
		var d commands.TestData
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("stdout is not the JSON document: %v\n%s", err, out)
		}
		var got []string
		for _, tc := range d.Tests {
			got = append(got, tc.File+" "+tc.Status)
		}
		slices.Sort(got)
		want := []string{
			"src/shared/Deep.spec.luau passed", // requires Chain, which requires the changed Util
			"src/shared/Dyn.spec.luau passed",  // a require by a computed name: cannot tell
			"src/shared/Mine.spec.luau passed", // changed in the work tree
			"src/shared/Util.spec.luau passed", // requires the changed Util
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ran %v, want %v (Other.spec skipped)", got, want)
		}
		if !strings.Contains(errOut, "--changed-since base: skipping 1 spec(s)") {
			t.Fatalf("stderr does not say what was skipped: %q", errOut)
		}
		if l := leftovers(t, port); l != "" {
			t.Fatalf("left behind: %s", l)
		}
	})

	t.Run("specs in the place: CONFIG.skip", func(t *testing.T) {
		placeSuite(t, port, "Changed",
			module{"a.spec", "return function()\n\tit('a passes', function() end)\nend"},
			module{"b.spec", "return function()\n\tit('b passes', function() end)\nend"})
		root := `runId="r2",root="ReplicatedStorage.Changed"`
		var listed struct {
			Specs []string `json:"specs"`
		}
		runnerWith(t, port, root+`,discover=true,skip={"ReplicatedStorage.Changed.a.spec"}`, &listed)
		if want := []string{"ReplicatedStorage.Changed.b.spec"}; !slices.Equal(listed.Specs, want) {
			t.Fatalf("discover listed %v, want %v", listed.Specs, want)
		}
		var ran struct {
			Error string `json:"error"`
			Tests []struct {
				Name, Status string
			} `json:"tests"`
		}
		runnerWith(t, port, root+`,skip={"ReplicatedStorage.Changed.a.spec"}`, &ran)
		if ran.Error != "" || len(ran.Tests) != 1 || ran.Tests[0].Name != "b passes" {
			t.Fatalf("ran %+v, want only b", ran)
		}
		ran.Tests = nil
		runnerWith(t, port, root+`,skip={"ReplicatedStorage.Changed.a.spec","ReplicatedStorage.Changed.b.spec"}`, &ran)
		if ran.Error != "" || ran.Tests == nil || len(ran.Tests) != 0 {
			t.Fatalf("every spec skipped: %+v, want an empty run", ran)
		}
	})
}
