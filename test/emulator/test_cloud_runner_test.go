package emulator_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// runnerWith runs commands/testrun/testrunner.luau in the emulator with the given
// CONFIG fields (as test --cloud sends it to an Open Cloud task) and
// decodes its JSON answer.
func runnerWith(t *testing.T, port int, config string, into any) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "commands", "testrun", "testrunner.luau"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, port, "exec", "--json", "local CONFIG = {"+config+"}\n"+string(src))
	if code != 0 {
		t.Fatalf("exec exited %d: %s %s", code, out, errOut)
	}
	var data struct {
		ReturnValues []string `json:"returnValues"`
	}
	if err := json.Unmarshal([]byte(out), &data); err != nil || len(data.ReturnValues) != 1 {
		t.Fatalf("exec answered %s (%v)", out, err)
	}
	if err := json.Unmarshal([]byte(data.ReturnValues[0]), into); err != nil {
		t.Fatalf("the runner answered %s (%v)", data.ReturnValues[0], err)
	}
}

// The runner's options for sharded Open Cloud runs, in a real Luau VM with
// real TestEZ: discover lists the specs, only runs a slice, perSpec plans
// one spec at a time and times each.
func TestRunnerShardOptions(t *testing.T) {
	port, _, b := startWindow(t, "--quiet", "--instance", "E2E-SHARDS")
	waitSessions(t, b, "E2E-SHARDS", protocol.ContextEdit)
	placeSuite(t, port, "Shard",
		module{"a.spec", "return function()\n\tit('passes', function() end)\nend"},
		module{"b.spec", "return function()\n\tit('fails', function() error('no') end)\nend"},
		module{"c.spec", "return function()\n\tit('waits', function() task.wait(0.05) end)\n\tit('also passes', function() end)\nend"})
	root := `runId="r1",root="ReplicatedStorage.Shard"`

	var listed struct {
		Specs []string `json:"specs"`
	}
	runnerWith(t, port, root+",discover=true", &listed)
	slices.Sort(listed.Specs)
	if want := []string{"ReplicatedStorage.Shard.a.spec", "ReplicatedStorage.Shard.b.spec", "ReplicatedStorage.Shard.c.spec"}; !slices.Equal(listed.Specs, want) {
		t.Fatalf("discover listed %v, want %v", listed.Specs, want)
	}

	var ran struct {
		Tests []struct {
			Name, Status, File string
		} `json:"tests"`
		SpecDurations map[string]int64 `json:"specDurations"`
	}
	runnerWith(t, port, root+`,perSpec=true,only={"ReplicatedStorage.Shard.a.spec","ReplicatedStorage.Shard.c.spec"}`, &ran)
	var got []string
	for _, tc := range ran.Tests {
		got = append(got, tc.File+" "+tc.Name+" "+tc.Status)
	}
	slices.Sort(got)
	want := []string{
		"ReplicatedStorage.Shard.a.spec passes passed",
		"ReplicatedStorage.Shard.c.spec also passes passed",
		"ReplicatedStorage.Shard.c.spec waits passed",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the slice ran %v, want %v", got, want)
	}
	if _, ok := ran.SpecDurations["ReplicatedStorage.Shard.a.spec"]; !ok || len(ran.SpecDurations) != 2 {
		t.Fatalf("spec durations %v: want a and c", ran.SpecDurations)
	}
	if l := leftovers(t, port); l != "" {
		t.Fatalf("left behind: %s", l)
	}
}
