package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/sourcemap"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// changedProject is commands/testrun/testdata/changed in a git repository
// tagged base, then Util.luau changed in a commit and Mine.spec.luau in the
// work tree; the current folder is the project and its map is loaded.
func changedProject(t *testing.T) string {
	t.Helper()
	dir := kit.GitRepo(t, kit.ReadTree(t, filepath.Join("testrun", "testdata", "changed")))
	kit.Git(t, dir, "tag", "base")
	util := filepath.Join(dir, "src", "shared", "Util.luau")
	if err := os.WriteFile(util, []byte("return { double = function(n) return n + n end }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kit.Git(t, dir, "commit", "-q", "-am", "util changes")
	mine := filepath.Join(dir, "src", "shared", "Mine.spec.luau")
	if err := os.WriteFile(mine, []byte("return function() end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	m, err := sourcemap.Load("sourcemap.json")
	if err != nil {
		t.Fatal(err)
	}
	m.SetWorkingDir(dir)
	SetSourceMap(m)
	t.Cleanup(func() { SetSourceMap(nil) })
	return dir
}

// --changed-since leaves out the specs that neither changed nor require a
// changed module, from disk (by file) and under --root (CONFIG.skip).
func TestTestChangedSince(t *testing.T) {
	changedProject(t)
	args := &TestArgs{Paths: []string{"src"}, ChangedSince: "base"}
	var err error
	if args.changes, err = changedSince(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	script, _, err := testScript(args, (&Env{}).specScope())
	if err != nil {
		t.Fatal(err)
	}
	for spec, runs := range map[string]bool{"Util": true, "Deep": true, "Mine": true, "Dyn": true, "Other": false} {
		mounted := `file="src/shared/` + spec + `.spec.luau"`
		if !strings.Contains(script, mounted) {
			t.Fatalf("%s.spec is not mounted (specs that do not run stay, others may require them)", spec)
		}
		if got := strings.Contains(script, mounted+",spec=true"); got != runs {
			t.Errorf("%s.spec runs: %v, want %v", spec, got, runs)
		}
	}
	if args.skipped != 1 {
		t.Errorf("skipped %d, want 1", args.skipped)
	}

	root := &TestArgs{Root: "ReplicatedStorage.Shared", ChangedSince: "base", changes: args.changes}
	if script, _, err = testScript(root, (&Env{}).specScope()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(script, `skip={"ReplicatedStorage.Shared.Other.spec"}`) || root.skipped != 1 {
		t.Fatalf("--root: skipped %d; CONFIG %s", root.skipped, script[:strings.Index(script, "\n")])
	}
}

// When every spec is unchanged nothing is sent: an empty, passing report,
// and stderr says how many specs were skipped.
func TestTestChangedSinceNothingChanged(t *testing.T) {
	dir := changedProject(t)
	// Dyn.spec always runs (a require by a computed name): it goes
	kit.Git(t, dir, "rm", "-q", "src/shared/Dyn.spec.luau")
	kit.Git(t, dir, "commit", "-q", "-am", "mine too")
	var stderr bytes.Buffer
	env := &Env{Command: Test, Log: slog.New(slog.DiscardHandler), Timeout: Test.Timeout, Stderr: &stderr}
	res, err := Test.run(context.Background(), env, &TestArgs{Paths: []string{"src"}, ChangedSince: "HEAD", Reporter: "text"})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Data.(TestData); len(d.Tests) != 0 || res.Failure != "" {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(stderr.String(), "skipping all 4 spec(s)") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

// Refusals: a bad ref, --merge beside it.
func TestTestChangedSinceRefusals(t *testing.T) {
	changedProject(t)
	env := &Env{Command: Test, Log: slog.New(slog.DiscardHandler), Timeout: Test.Timeout}
	for _, tc := range []struct {
		args TestArgs
		says string
	}{
		{TestArgs{Paths: []string{"src"}, ChangedSince: "no-such-ref"}, "git cannot compare with it"},
		{TestArgs{Paths: []string{"src"}, ChangedSince: "--output=x"}, "is not a git ref"},
		{TestArgs{ChangedSince: "base", CloudTest: CloudTest{Merge: []string{"a.json"}}}, "does not combine"},
	} {
		_, err := Test.run(context.Background(), env, &tc.args)
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v, want a usage error saying %q", tc.args, err, tc.says)
		}
	}
}

// test --cloud --changed-since: the task's runner leaves the unchanged
// specs out (CONFIG.skip), whether it lists specs first or runs them all.
func TestTestCloudChangedSince(t *testing.T) {
	changedProject(t)
	srv := cloudtest.New()
	defer srv.Close()
	srv.Set(func(s *cloudtest.Server) {
		s.Default = cloudtest.Outcome{Results: []any{cloudtest.RunnerAnswer("ReplicatedStorage.Shared", "nope")}}
	})
	t.Setenv(EnvAPIKey, cloudtest.Key)
	t.Setenv(EnvUniverseID, "1")
	t.Setenv(EnvPlaceID, "2")
	t.Setenv(EnvOpenCloudURL, srv.URL)
	var stderr bytes.Buffer
	env := &Env{Command: Test, Log: slog.New(slog.DiscardHandler), Timeout: Test.Timeout, Stderr: &stderr}
	_, err := Test.run(context.Background(), env, &TestArgs{Cloud: true, Root: "ReplicatedStorage.Shared", ChangedSince: "base", Reporter: "text", CloudTest: CloudTest{Parallel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	tasks := srv.Tasks()
	if len(tasks) != 1 || !strings.Contains(tasks[0].Script, `skip={"ReplicatedStorage.Shared.Other.spec"}`) {
		t.Fatalf("tasks: %d; first line %q", len(tasks), firstLine(tasks))
	}
	if !strings.Contains(stderr.String(), "skipping 1 spec(s)") {
		t.Fatalf("stderr %q", stderr.String())
	}

	// with slices the discovery task gets the skip list too, and a slice
	// left empty is an empty run, not a refusal
	srv.Set(func(s *cloudtest.Server) {
		list, _ := json.Marshal(map[string]any{"specs": []string{}})
		s.Default = cloudtest.Outcome{Results: []any{string(list)}}
	})
	res, err := Test.run(context.Background(), env, &TestArgs{Cloud: true, Root: "ReplicatedStorage.Shared", ChangedSince: "base", Reporter: "text", CloudTest: CloudTest{Parallel: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Data.(ShardedTestData); len(d.Tests) != 0 {
		t.Fatalf("%+v", d)
	}
	tasks = srv.Tasks()
	if last := tasks[len(tasks)-1]; !strings.Contains(last.Script, "discover=true") || !strings.Contains(last.Script, `skip={"ReplicatedStorage.Shared.Other.spec"}`) {
		t.Fatalf("discovery task: %q", firstLine(tasks[len(tasks)-1:]))
	}
}

func firstLine(tasks []cloudtest.TaskInfo) string {
	if len(tasks) == 0 {
		return ""
	}
	line, _, _ := strings.Cut(tasks[0].Script, "\n")
	return line
}
