package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/commands"
)

// The built binary: two --shard jobs of test --cloud, then test --merge
// with a repeated --merge flag, give one report with every spec once.
func TestTestCloudShardsThroughTheBinary(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	suite := &cloudtest.Suite{}
	for i := range 6 {
		sp := cloudtest.SuiteSpec{File: fmt.Sprintf("ReplicatedStorage.Tests.s%d.spec", i), Passed: 1}
		if i == 4 {
			sp.Failed = 1
		}
		suite.Specs = append(suite.Specs, sp)
	}
	s.Set(func(s *cloudtest.Server) { s.Runner = suite.Outcome })
	bp := newBridgePort(t)
	environ := env(t, s, bp)
	dir := t.TempDir()
	var files []string
	for i := 1; i <= 2; i++ {
		r := runBinary(t, environ, "test", "--json", "--cloud", "--root", "ReplicatedStorage.Tests", "--shard", fmt.Sprintf("%d/2", i), "--parallel", "2")
		if r.Code != 0 && r.Code != 1 {
			t.Fatalf("shard %d exited %d: %s", i, r.Code, r.Stderr)
		}
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		if err := os.WriteFile(f, []byte(r.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	r := runBinary(t, environ, "test", "--json", "--merge", files[0], "--merge", files[1])
	if r.Code != 1 { // one test failed
		t.Fatalf("merge exited %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	var d commands.ShardedTestData
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	if d.Passed != 6 || d.Failed != 1 || len(d.Shards) != 4 {
		t.Fatalf("merged %d passed, %d failed, %d shards", d.Passed, d.Failed, len(d.Shards))
	}
	r = runBinary(t, environ, "test", "--merge", files[0], "--root", "X.Y")
	if r.Code != 2 || !strings.Contains(r.Stderr, "merges reports") {
		t.Fatalf("--merge with --root: exit %d, %s", r.Code, r.Stderr)
	}
	if bp.dials.Load() != 0 {
		t.Fatal("test --cloud or --merge touched the bridge port")
	}
}
