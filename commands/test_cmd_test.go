package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/commands/testrun"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// No specs at all is a usage error naming where test looked.
func TestTestNoSpecsIsUsage(t *testing.T) {
	t.Chdir(kit.Files(t, map[string]string{"b/Helper.luau": "return {}"}))
	_, _, err := testScript(&TestArgs{Paths: []string{"b"}}, testrun.SpecScope{})
	var ue UsageError
	if !errors.As(err, &ue) || !errors.Is(err, testrun.ErrNoSpecs) || !strings.Contains(err.Error(), "in b") {
		t.Fatalf("no specs: %v", err)
	}
}

func TestCheckTestArgs(t *testing.T) {
	for _, tc := range []struct {
		args TestArgs
		says string
	}{
		{TestArgs{Root: "ReplicatedStorage.Tests"}, ""},
		{TestArgs{Paths: []string{"."}}, ""},
		{TestArgs{Paths: []string{"."}, Root: "ReplicatedStorage.Tests"}, "not both"},
		{TestArgs{CloudPlace: CloudPlace{Place: "2"}}, "--place only applies with --cloud"},
		{TestArgs{Cloud: true}, "give --root"},
		{TestArgs{Cloud: true, Paths: []string{"tests"}}, "give --root"},
		{TestArgs{Root: "..."}, "not an instance path"},
		{TestArgs{TestEZPath: "a\nb"}, "not an instance path"},
		{TestArgs{Runner: "jest", JestPath: "ReplicatedStorage.DevPackages.Jest"}, ""},
		{TestArgs{Runner: "jest", JestPath: "a\x00"}, "not an instance path"},
		{TestArgs{Runner: "jest", TestEZPath: "ReplicatedStorage.TestEZ"}, "--testez-path is for TestEZ"},
		{TestArgs{JestPath: "ReplicatedStorage.Jest"}, "only applies with --runner jest"},
		{TestArgs{Cloud: true, Playtest: Playtest{Play: true}, Root: "ReplicatedStorage.Tests"}, "do not combine with --cloud"},
	} {
		err := checkTestArgs(&tc.args)
		if tc.says == "" {
			if err != nil {
				t.Fatalf("%+v: %v", tc.args, err)
			}
			continue
		}
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
			t.Fatalf("%+v: %v, want a usage error saying %q", tc.args, err, tc.says)
		}
	}
}

// test --cloud runs the runner as one Open Cloud task with --root and
// reports what it returns, as a local run does.
func TestTestCloud(t *testing.T) {
	srv := cloudtest.New()
	defer srv.Close()
	answer := cloudtest.RunnerAnswer("ServerStorage.Tests", "nope\nReplicatedStorage.DevPackages.TestEZ.TestRunner:86")
	srv.Set(func(s *cloudtest.Server) {
		s.Default = cloudtest.Outcome{Results: []any{answer}, Logs: []string{"spec output"}}
	})
	t.Setenv(EnvAPIKey, cloudtest.Key)
	t.Setenv(EnvUniverseID, "1")
	t.Setenv(EnvPlaceID, "2")
	t.Setenv(EnvOpenCloudURL, srv.URL)
	var stderr bytes.Buffer
	var streamed []Line
	env := &Env{Command: Test, Log: slog.New(slog.DiscardHandler), Timeout: Test.Timeout, Stderr: &stderr, Output: func(l Line) { streamed = append(streamed, l) }}
	res, err := Test.run(context.Background(), env, &TestArgs{Cloud: true, Root: "ServerStorage.Tests", Reporter: "text", CloudTest: CloudTest{Parallel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	data := res.Data.(ShardedTestData).TestData
	if data.Passed != 1 || data.Failed != 1 || data.Tests[1].Message != "ServerStorage.Tests.math.spec:7: nope" || data.Tests[1].Line != 7 {
		t.Fatalf("data: %+v", data)
	}
	if res.Failure == "" {
		t.Fatal("a failed test is no failure")
	}
	if len(streamed) != 0 || !strings.Contains(stderr.String(), "spec output") {
		t.Fatalf("the specs' output must go to stderr, not the stream: %v / %q", streamed, stderr.String())
	}
	tasks := srv.Tasks()
	if len(tasks) != 1 || !strings.Contains(tasks[0].Script, `root="ServerStorage.Tests"`) || !strings.Contains(tasks[0].Script, "TestEZ.TestPlanner.createPlan") {
		t.Fatalf("tasks: %+v", tasks)
	}

	// The runner's own refusal reads as a usage error.
	missing, _ := json.Marshal(map[string]any{"error": "testez-missing", "searched": []string{"ReplicatedStorage.DevPackages.TestEZ"}})
	srv.Set(func(s *cloudtest.Server) { s.Default = cloudtest.Outcome{Results: []any{string(missing)}} })
	_, err = Test.run(context.Background(), env, &TestArgs{Cloud: true, Root: "ServerStorage.Tests"})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), wallyLine) {
		t.Fatalf("TestEZ missing: %v", err)
	}
}

// test --cloud's refusals name test --cloud, not the exec path it shares.
func TestTestCloudErrorsNameTest(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	env := &Env{Command: Test, Log: slog.New(slog.DiscardHandler), Timeout: Test.Timeout, Stderr: io.Discard}
	_, err := Test.run(context.Background(), env, &TestArgs{Cloud: true, Root: "ServerStorage.Tests"})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "test --cloud: set "+EnvAPIKey) {
		t.Fatalf("%v, want a usage error naming test --cloud", err)
	}
	_, err = Exec.run(context.Background(), env, &ExecArgs{Script: "print(1)", Cloud: true})
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "exec --cloud: set "+EnvAPIKey) {
		t.Fatalf("%v, want a usage error naming exec --cloud", err)
	}
}

// A run too large for any plugin is refused before anything is sent.
func TestTestRefusesOversizedRuns(t *testing.T) {
	dir := kit.Files(t, map[string]string{"big.spec.luau": "-- " + strings.Repeat("x", 16<<20) + "\nreturn function() end"})
	t.Chdir(dir)
	_, err := Test.run(context.Background(), &Env{Command: Test, Timeout: time.Second}, &TestArgs{Reporter: "text"})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "a Studio plugin takes at most") {
		t.Fatalf("%v", err)
	}
}
