package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud"
	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/commands/testrun"
)

// cloudSuite starts a stand-in whose tasks answer from a suite of n specs
// (every third with a failure, every fifth with a skip, each taking
// delay), with polls short enough for tests.
func cloudSuite(t testing.TB, n int, delay time.Duration) (*cloudtest.Server, *cloudtest.Suite) {
	t.Helper()
	suite := &cloudtest.Suite{}
	for i := range n {
		sp := cloudtest.SuiteSpec{File: fmt.Sprintf("ServerStorage.Tests.s%03d.spec", i), Passed: 2, Delay: delay}
		if i%3 == 0 {
			sp.Failed = 1
		}
		if i%5 == 0 {
			sp.Skipped = 1
		}
		suite.Specs = append(suite.Specs, sp)
	}
	srv := cloudtest.New()
	t.Cleanup(srv.Close)
	srv.Set(func(s *cloudtest.Server) { s.Runner = suite.Outcome; s.RetryAfter = "0.01" })
	t.Setenv(EnvAPIKey, cloudtest.Key)
	t.Setenv(EnvUniverseID, "1")
	t.Setenv(EnvPlaceID, "2")
	t.Setenv(EnvOpenCloudURL, srv.URL)
	tuneCloudClient = func(c *cloud.Client) {
		c.PollMin, c.PollMax = 2*time.Millisecond, 10*time.Millisecond
		c.BackoffMin, c.BackoffMax = 2*time.Millisecond, 20*time.Millisecond
	}
	wait := slotWait
	slotWait = 5 * time.Millisecond
	t.Cleanup(func() { tuneCloudClient, slotWait = nil, wait })
	return srv, suite
}

func cloudEnv() *Env {
	return &Env{Command: Test, Log: slog.New(slog.DiscardHandler), Timeout: Test.Timeout}
}

func runCloudTest(t testing.TB, args TestArgs) ShardedTestData {
	t.Helper()
	args.Cloud, args.Root = true, "ServerStorage.Tests"
	if args.Reporter == "" {
		args.Reporter = "text"
	}
	res, err := Test.run(context.Background(), cloudEnv(), &args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Data.(ShardedTestData)
}

// outcomes is a run's tests as sorted "file|name|status" lines.
func outcomes(d TestData) []string {
	var out []string
	for _, tc := range d.Tests {
		out = append(out, tc.File+"|"+tc.Name+"|"+tc.Status)
	}
	slices.Sort(out)
	return out
}

// --parallel N reports exactly what one task reports, with one shard per
// task whose specs together are every spec once.
func TestCloudParallelEqualsSerial(t *testing.T) {
	srv, suite := cloudSuite(t, 30, 0)
	serial := runCloudTest(t, TestArgs{CloudTest: CloudTest{Parallel: 1}})
	par := runCloudTest(t, TestArgs{CloudTest: CloudTest{Parallel: 5}})
	if serial.Passed != 60 || serial.Failed != 10 || serial.Skipped != 6 {
		t.Fatalf("serial counts %d/%d/%d", serial.Passed, serial.Failed, serial.Skipped)
	}
	if par.Passed != serial.Passed || par.Failed != serial.Failed || par.Skipped != serial.Skipped || !slices.Equal(outcomes(par.TestData), outcomes(serial.TestData)) {
		t.Fatalf("parallel %+v differs from serial", par.TestData)
	}
	if len(par.Shards) != 5 {
		t.Fatalf("%d shards", len(par.Shards))
	}
	seen := map[string]int{}
	for i, sh := range par.Shards {
		if sh.Index != i+1 || sh.TaskPath == "" || len(sh.Specs) == 0 {
			t.Fatalf("shard %+v", sh)
		}
		for _, s := range sh.Specs {
			seen[s]++
		}
	}
	for _, sp := range suite.Specs {
		if seen[sp.File] != 1 {
			t.Fatalf("%s ran in %d shards", sp.File, seen[sp.File])
		}
	}
	// one discovery task, then 5; every run task timed its specs
	if n := len(srv.Tasks()); n != 1+1+5 {
		t.Fatalf("%d tasks", n)
	}
	for _, tk := range srv.Tasks() {
		if !strings.Contains(tk.Script, "discover=true") && !strings.Contains(tk.Script, "perSpec=true") {
			t.Fatalf("a run task without per-spec timing: %.200s", tk.Script)
		}
	}
	// the JSON document carries the shards
	raw, _ := json.Marshal(par)
	if !strings.Contains(string(raw), `"shards":[{"index":1,"taskPath":`) {
		t.Fatalf("json: %.300s", raw)
	}
}

// --shard I/N slices are disjoint and complete, and --merge of their
// reports gives the serial run's totals and tests, in every format.
func TestCloudShardsMerge(t *testing.T) {
	_, _ = cloudSuite(t, 25, 0)
	dir := t.TempDir()
	timings := filepath.Join(dir, "timings.json")
	serial := runCloudTest(t, TestArgs{CloudTest: CloudTest{Parallel: 1}})
	var files []string
	seen := map[string]int{}
	for i := 1; i <= 4; i++ {
		d := runCloudTest(t, TestArgs{CloudTest: CloudTest{Parallel: 2, Shard: fmt.Sprintf("%d/4", i), Timings: timings}})
		for _, sh := range d.Shards {
			for _, s := range sh.Specs {
				seen[s]++
			}
		}
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		if err := os.WriteFile(f, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(seen) != 25 {
		t.Fatalf("the shards ran %d of 25 specs", len(seen))
	}
	for s, n := range seen {
		if n != 1 {
			t.Fatalf("%s ran in %d shards", s, n)
		}
	}
	junit := filepath.Join(dir, "merged.xml")
	for _, reporter := range []string{"text", "github"} {
		res, err := Test.run(context.Background(), cloudEnv(), &TestArgs{Reporter: reporter, JUnit: junit, CloudTest: CloudTest{Merge: files}})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Data.(ShardedTestData)
		if m.Passed != serial.Passed || m.Failed != serial.Failed || m.Skipped != serial.Skipped || !slices.Equal(outcomes(m.TestData), outcomes(serial.TestData)) {
			t.Fatalf("merged %d/%d/%d, serial %d/%d/%d", m.Passed, m.Failed, m.Skipped, serial.Passed, serial.Failed, serial.Skipped)
		}
		if len(m.Shards) != 8 || res.Failure == "" {
			t.Fatalf("%d shards, failure %q", len(m.Shards), res.Failure)
		}
		one := serial.TestData
		one.DurationMs = m.DurationMs
		if reporter == "text" && res.Render() != one.Summary() {
			t.Fatalf("text report differs:\n%s\nvs\n%s", res.Render(), one.Summary())
		}
		if reporter == "github" && res.Render() != one.GitHub() {
			t.Fatal("github report differs")
		}
		got, _ := os.ReadFile(junit)
		if string(got) != string(one.JUnit()) {
			t.Fatal("JUnit report differs")
		}
	}
	// every shard wrote its specs' timings
	tm, err := testrun.ReadTimings(timings)
	if err != nil || len(tm) != 25 {
		t.Fatalf("timings %d %v", len(tm), err)
	}
	// the same shard twice overlaps
	_, err = Test.run(context.Background(), cloudEnv(), &TestArgs{Reporter: "text", CloudTest: CloudTest{Merge: []string{files[0], files[0]}}})
	if err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("overlap: %v", err)
	}
}

// --merge refuses what does not go with it, and files that are no reports.
func TestCloudMergeUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"passed":1}`), 0o644)
	cases := []struct {
		args TestArgs
		says string
	}{
		{TestArgs{Root: "ServerStorage.Tests", CloudTest: CloudTest{Merge: []string{"a.json"}}}, "takes no spec paths"},
		{TestArgs{Paths: []string{"x"}, CloudTest: CloudTest{Merge: []string{"a.json"}}}, "takes no spec paths"},
		{TestArgs{CloudTest: CloudTest{Merge: []string{filepath.Join(dir, "none.json")}}}, "cannot be read"},
		{TestArgs{CloudTest: CloudTest{Merge: []string{bad}}}, "not a report"},
		{TestArgs{CloudTest: CloudTest{Shard: "1/2"}}, "only applies with"},
		{TestArgs{CloudTest: CloudTest{Parallel: 3}}, "only applies with"},
		{TestArgs{Cloud: true, Root: "A.B", CloudTest: CloudTest{Shard: "3/2"}}, "I/N"},
		{TestArgs{Cloud: true, Root: "A.B", CloudTest: CloudTest{Parallel: -1}}, "1 to 10"},
	}
	for _, tc := range cases {
		tc.args.Reporter = "text"
		_, err := Test.run(context.Background(), cloudEnv(), &tc.args)
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("%+v: %v (want a usage error saying %q)", tc.args, err, tc.says)
		}
	}
}

// A second run of an unchanged place file uploads nothing; the tasks then
// run unpinned with the in-task version check; --no-upload-cache uploads.
func TestCloudUploadCache(t *testing.T) {
	srv, _ := cloudSuite(t, 6, 0)
	dir := t.TempDir()
	t.Chdir(dir)
	place := filepath.Join(dir, "build.rbxl")
	if err := os.WriteFile(place, []byte("place bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := TestArgs{CloudPlace: CloudPlace{PlaceFile: place}, CloudTest: CloudTest{Parallel: 2}}
	first := runCloudTest(t, args)
	second := runCloudTest(t, args)
	if n := len(srv.Uploads()); n != 1 {
		t.Fatalf("%d uploads for two runs of one file", n)
	}
	if !slices.Equal(outcomes(first.TestData), outcomes(second.TestData)) {
		t.Fatal("the cached run reports differently")
	}
	for _, tk := range srv.Tasks() {
		if tk.Pinned || !strings.Contains(tk.Script, "placeVersion=8") || tk.Version != 8 {
			t.Fatalf("task %+v: want unpinned, checking version 8", tk)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, cloud.DefaultUploadCache)); err != nil {
		t.Fatal(err)
	}
	args.NoUploadCache = true
	runCloudTest(t, args)
	if n := len(srv.Uploads()); n != 2 {
		t.Fatalf("--no-upload-cache: %d uploads", n)
	}
	// changed bytes upload again
	args.NoUploadCache = false
	_ = os.WriteFile(place, []byte("other bytes"), 0o644)
	runCloudTest(t, args)
	if n := len(srv.Uploads()); n != 3 {
		t.Fatalf("a changed file: %d uploads", n)
	}
}

// An unpinned task that lands on another version answers so, and is run
// again pinned to the expected one; the report is whole.
func TestCloudVersionRaceRerunsPinned(t *testing.T) {
	srv, _ := cloudSuite(t, 8, 0)
	t.Chdir(t.TempDir())
	place := "build.rbxl"
	_ = os.WriteFile(place, []byte("x"), 0o644)
	srv.Set(func(s *cloudtest.Server) { s.Race = 1 })
	d := runCloudTest(t, TestArgs{CloudPlace: CloudPlace{PlaceFile: place}, CloudTest: CloudTest{Parallel: 2, NoUploadCache: true}})
	if d.Passed != 16 {
		t.Fatalf("passed %d", d.Passed)
	}
	if raced, pinned := srv.RaceOutcome(8); raced != 1 || pinned != 1 {
		t.Fatalf("raced %d, pinned re-runs %d: %+v", raced, pinned, srv.Tasks())
	}
}

// The 11th unfinished task of a place is refused with 429; the run waits
// (one limiter, Retry-After) and every task still runs once.
func TestCloudPerPlaceLimit(t *testing.T) {
	srv, _ := cloudSuite(t, 6, 300*time.Millisecond)
	srv.Set(func(s *cloudtest.Server) { s.MaxUnfinished = 1; s.RetryAfter = "0.05" })
	d := runCloudTest(t, TestArgs{CloudTest: CloudTest{Parallel: 3}})
	if d.Passed != 12 || len(d.Shards) != 3 {
		t.Fatalf("passed %d, %d shards", d.Passed, len(d.Shards))
	}
	if srv.Refused() == 0 {
		t.Fatal("no create was refused: the limit was not exercised")
	}
	if n := len(srv.Tasks()); n != 4 {
		t.Fatalf("%d tasks created (want discovery + 3)", n)
	}
}

// A task that reaches its deadline fails its specs by name; it never
// passes them.
func TestCloudDeadlineFailsSpecs(t *testing.T) {
	srv, suite := cloudSuite(t, 4, 0)
	slow := suite.Specs[0].File
	suite.Specs[0].Delay = 3 * time.Second
	srv.Set(func(s *cloudtest.Server) { s.Runner = suite.Outcome })
	env := cloudEnv()
	env.Timeout = time.Second
	res, err := Test.run(context.Background(), env, &TestArgs{Cloud: true, Root: "ServerStorage.Tests", Reporter: "text", CloudTest: CloudTest{Parallel: 2}})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Data.(ShardedTestData)
	var named bool
	for _, tc := range d.Tests {
		if tc.File == slow && tc.Status != "failed" {
			t.Fatalf("a spec of the timed-out task reported %s", tc.Status)
		}
		if tc.File == slow && strings.Contains(tc.Message, "did not finish") {
			named = true
		}
	}
	if !named || res.Failure == "" {
		t.Fatalf("the deadline is not a named failure: %+v", d.Tests)
	}
}

// A create whose answer was lost is never sent again: an infrastructure
// failure (unknown outcome), not a test result.
func TestCloudLostCreateNotResent(t *testing.T) {
	srv, _ := cloudSuite(t, 3, 0)
	srv.Inject(cloudtest.Fault{Endpoint: "create", Drop: true})
	_, err := Test.run(context.Background(), cloudEnv(), &TestArgs{Cloud: true, Root: "ServerStorage.Tests", Reporter: "text", CloudTest: CloudTest{Parallel: 1}})
	if cloud.KindOf(err) != cloud.KindUnknownOutcome {
		t.Fatalf("%v", err)
	}
	if n := srv.Count("POST", "/luau-execution-session-tasks"); n != 1 {
		t.Fatalf("%d creates", n)
	}
}

// Ctrl-C stops polling and names the tasks that run on.
func TestCloudInterruptNamesRunningTasks(t *testing.T) {
	srv, suite := cloudSuite(t, 4, 0)
	for i := range suite.Specs {
		suite.Specs[i].Delay = time.Hour
	}
	srv.Set(func(s *cloudtest.Server) { s.Runner = suite.Outcome })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Test.run(ctx, cloudEnv(), &TestArgs{Cloud: true, Root: "ServerStorage.Tests", Reporter: "text", CloudTest: CloudTest{Parallel: 2}})
		done <- err
	}()
	// sync point: both slices' tasks created and polled (the client knows
	// their paths)
	for {
		polled := 0
		for _, tk := range srv.Tasks() {
			if !strings.Contains(tk.Script, "discover=true") && tk.Polls > 0 {
				polled++
			}
		}
		if polled == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "2 task(s) run on") {
		t.Fatalf("%v", err)
	}
	for _, tk := range srv.Tasks() {
		if !strings.Contains(tk.Script, "discover=true") && !strings.Contains(err.Error(), tk.Path) {
			t.Fatalf("the error does not name %s: %v", tk.Path, err)
		}
	}
}

// --place lists places: tasks go to each in turn, each place gets the
// upload, and one --place-version cannot name versions of several places.
func TestCloudSeveralPlaces(t *testing.T) {
	srv, _ := cloudSuite(t, 8, 0)
	srv.Set(func(s *cloudtest.Server) { s.OtherPlaces[3] = 20 })
	t.Chdir(t.TempDir())
	_ = os.WriteFile("build.rbxl", []byte("x"), 0o644)
	d := runCloudTest(t, TestArgs{CloudPlace: CloudPlace{Place: "2,3", PlaceFile: "build.rbxl"}, CloudTest: CloudTest{Parallel: 4}})
	if d.Passed != 16 || len(srv.Uploads()) != 2 {
		t.Fatalf("passed %d, %d uploads", d.Passed, len(srv.Uploads()))
	}
	perPlace := map[int64]int{}
	for _, tk := range srv.Tasks() {
		perPlace[tk.Place]++
		if (tk.Place == 2 && tk.Version != 8) || (tk.Place == 3 && tk.Version != 21) {
			t.Fatalf("task %+v ran the wrong version", tk)
		}
	}
	if perPlace[2] != 3 || perPlace[3] != 2 { // discovery on the first place, then 2 slices each
		t.Fatalf("tasks per place %v", perPlace)
	}
	_, err := Test.run(context.Background(), cloudEnv(), &TestArgs{Cloud: true, Root: "ServerStorage.Tests", Reporter: "text", CloudPlace: CloudPlace{Place: "2,3", PlaceVersion: 4}})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "versions differ") {
		t.Fatalf("%v", err)
	}
	_, err = Test.run(context.Background(), cloudEnv(), &TestArgs{Cloud: true, Root: "ServerStorage.Tests", Reporter: "text", CloudPlace: CloudPlace{Place: "2,x"}})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not a place ID") {
		t.Fatalf("%v", err)
	}
}
