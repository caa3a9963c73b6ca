package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
)

// test --cloud --place-file --root: uploads the place, runs the runner as
// one task against that version, reports as locally (exit 1 for a failed
// test), never touching the bridge.
func TestTestCloud(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	s.Set(func(s *cloudtest.Server) {
		s.Default = cloudtest.Outcome{Results: []any{cloudtest.RunnerAnswer("ReplicatedStorage.Tests", "Expected 3, got 2")}}
	})
	place := filepath.Join(t.TempDir(), "build.rbxl")
	if err := os.WriteFile(place, []byte("place"), 0o600); err != nil {
		t.Fatal(err)
	}
	bp := newBridgePort(t)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	r := runBinary(t, env(t, s, bp), "test", "--cloud", "--place-file", place, "--root", "ReplicatedStorage.Tests", "--json", "--junit", junit)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a test failed)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var doc struct {
		Passed, Failed int
		Tests          []struct{ Name, Status, File, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("stdout is not the document: %v\n%s", err, r.stdout)
	}
	if doc.Passed != 1 || doc.Failed != 1 || doc.Tests[1].Message != "ReplicatedStorage.Tests.math.spec:7: Expected 3, got 2" {
		t.Fatalf("%+v", doc)
	}
	tasks := s.Tasks()
	if len(tasks) != 1 || tasks[0].Version != 8 || !strings.Contains(tasks[0].Script, `root="ReplicatedStorage.Tests"`) {
		t.Fatalf("tasks: %+v", tasks)
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), `failures="1"`) {
		t.Fatalf("junit: %v %s", err, x)
	}
	if bp.dials.Load() != 0 {
		t.Fatal("test --cloud touched the bridge port")
	}

	// Spec files from disk are refused in the cloud, before any request.
	r = runBinary(t, env(t, s, bp), "test", "--cloud", "tests")
	if r.code != 2 || !strings.Contains(r.stderr, "give --root") || len(s.Tasks()) != 1 {
		t.Fatalf("disk specs: exit %d\n%s", r.code, r.stderr)
	}
}
