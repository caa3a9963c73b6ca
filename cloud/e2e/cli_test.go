package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
)

// logs is what the stand-in's tasks print: one line of each level.
var logs = []string{"hello from the cloud", "WARNING: careful", "ERROR: bad thing", "INFO: stack line", "bye"}

func TestExecCloud(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.luau")
	if err := os.WriteFile(big, []byte("--"+strings.Repeat("x", 4<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		outcome  cloudtest.Outcome
		args     []string
		env      []string
		setup    func(*cloudtest.Server)
		code     int
		stdout   []string // exact stdout lines (nil: not checked)
		stderr   []string // substrings of stderr
		notOut   []string // not in stdout
		requests int      // -1: any; else the exact number the server saw
		timeout  string   // the task timeout sent, when set
		version  int64    // the place version the task ran against, when set
	}{
		{name: "success", outcome: cloudtest.Outcome{Results: []any{1, "two"}, Logs: logs},
			code: 0, stdout: []string{"hello from the cloud", "bye", "1", `"two"`}, stderr: []string{"careful", "bad thing", "stack line"}, notOut: []string{"careful", "bad thing"}, requests: -1, timeout: "120s"},
		{name: "success, logs while the task runs", setup: func(s *cloudtest.Server) { s.Set(func(s *cloudtest.Server) { s.LogsWhileRunning = true }) },
			outcome: cloudtest.Outcome{Queued: 1, Processing: 3, Results: []any{true}, Logs: logs}, code: 0, stdout: []string{"hello from the cloud", "bye", "true"}, requests: -1},
		{name: "script error", outcome: cloudtest.Outcome{State: "FAILED", Code: "SCRIPT_ERROR", Message: "Script:1: boom", Logs: logs[:1]},
			code: 1, stdout: []string{"hello from the cloud"}, stderr: []string{"script error: Script:1: boom"}, requests: -1},
		{name: "deadline exceeded", outcome: cloudtest.Outcome{State: "FAILED", Code: "DEADLINE_EXCEEDED", Message: "timed out"},
			code: 4, stderr: []string{"DEADLINE_EXCEEDED", "tasks/"}, requests: -1},
		{name: "output too large", outcome: cloudtest.Outcome{State: "FAILED", Code: "OUTPUT_SIZE_LIMIT_EXCEEDED"},
			code: 1, stderr: []string{"4 MB"}, requests: -1},
		{name: "internal error", outcome: cloudtest.Outcome{State: "FAILED", Code: "INTERNAL_ERROR"},
			code: 3, stderr: []string{"INTERNAL_ERROR"}, requests: -1},
		{name: "cancelled", outcome: cloudtest.Outcome{State: "CANCELLED"}, code: 3, stderr: []string{"cancelled"}, requests: -1},
		{name: "a given place version", args: []string{"--place-version", "3"}, code: 0, requests: -1, version: 3},
		{name: "the latest version", code: 0, requests: -1, version: 7},
		{name: "no such version", args: []string{"--place-version", "9"}, code: 3, stderr: []string{"universe 1, place 2, version 9", "not found"}, requests: 1},
		{name: "timeout capped at 300s", args: []string{"--timeout", "10m"}, code: 0, requests: -1, timeout: "300s"},
		{name: "timeout sent", args: []string{"--timeout", "45s"}, code: 0, requests: -1, timeout: "45s"},
		{name: "wrong key", env: []string{"ROBLOX_API_KEY=not-the-key-0000"}, code: 3,
			stderr: []string{"ROBLOX_API_KEY", "universe.place.luau-execution-session:write", "HTTP 401"}, requests: 1},
		{name: "no such place", args: []string{"--place", "99"}, code: 3, stderr: []string{"place 99", "not found"}, requests: 1},
		{name: "rate limited, then accepted", setup: func(s *cloudtest.Server) {
			s.Inject(cloudtest.Fault{Endpoint: "create", Status: 429, Header: map[string]string{"Retry-After": "0"}, Times: 2})
		}, code: 0, requests: -1},
		{name: "answer lost", setup: func(s *cloudtest.Server) { s.Inject(cloudtest.Fault{Endpoint: "create", Drop: true}) },
			code: 3, stderr: []string{"may or may not have been created"}, requests: 1},
		{name: "no key", env: []string{"ROBLOX_API_KEY="}, code: 2, stderr: []string{"ROBLOX_API_KEY", "universe-places:write"}, requests: 0},
		{name: "no universe", env: []string{"ROBLOX_UNIVERSE_ID="}, code: 2, stderr: []string{"--universe", "ROBLOX_UNIVERSE_ID"}, requests: 0},
		{name: "no place", env: []string{"ROBLOX_PLACE_ID="}, code: 2, stderr: []string{"--place", "ROBLOX_PLACE_ID"}, requests: 0},
		{name: "bad universe", args: []string{"--universe", "abc"}, code: 2, stderr: []string{`"abc" is not a universe ID`}, requests: 0},
		{name: "script over 4 MB", args: []string{big}, code: 2, stderr: []string{"larger than 4 MiB"}, requests: 0},
		{name: "cloud flag without --cloud", args: []string{"--universe", "1", "--no-cloud"}, code: 2, stderr: []string{"--universe only applies with --cloud"}, requests: 0},
		{name: "a session flag", args: []string{"--session", "abc"}, code: 2, stderr: []string{"--session does not apply"}, requests: 0},
		{name: "version and file", args: []string{"--place-version", "3", "--place-file", "x.rbxl"}, code: 2, stderr: []string{"contradict"}, requests: 0},
		{name: "not a place file", args: []string{"--place-file", "x.rbxm"}, code: 2, stderr: []string{"not a place file"}, requests: 0},
		{name: "bad base URL", env: []string{"STUDIO_BRIDGE_OPEN_CLOUD_URL=ftp://x"}, code: 2, stderr: []string{"STUDIO_BRIDGE_OPEN_CLOUD_URL"}, requests: 0},
		{name: "plain http off this machine", env: []string{"STUDIO_BRIDGE_OPEN_CLOUD_URL=http://example.com"}, code: 2, stderr: []string{"unencrypted"}, requests: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cloudtest.New()
			defer s.Close()
			s.Set(func(s *cloudtest.Server) { s.Default = tc.outcome })
			if tc.setup != nil {
				tc.setup(s)
			}
			bp := newBridgePort(t)
			args := []string{"exec", "--cloud", "--log-level", "debug"}
			script := "return 1"
			rest := tc.args
			if len(rest) > 0 && rest[len(rest)-1] == "--no-cloud" {
				args = []string{"exec", "--log-level", "debug"}
				rest = rest[:len(rest)-1]
			}
			if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
				script, rest = rest[0], rest[1:]
			}
			args = append(append(args, rest...), script)
			r := runBinary(t, env(t, s, bp, tc.env...), args...)
			if r.Code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.Code, tc.code, r.Stdout, r.Stderr)
			}
			if tc.stdout != nil && strings.Join(lines(r.Stdout), "|") != strings.Join(tc.stdout, "|") {
				t.Fatalf("stdout %q, want %q\nstderr:\n%s", lines(r.Stdout), tc.stdout, r.Stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(r.Stderr, w) {
					t.Fatalf("stderr does not say %q:\n%s", w, r.Stderr)
				}
			}
			for _, w := range tc.notOut {
				if strings.Contains(r.Stdout, w) {
					t.Fatalf("stdout has %q:\n%s", w, r.Stdout)
				}
			}
			if n := len(s.Requests()); tc.requests >= 0 && n != tc.requests {
				t.Fatalf("the server saw %d requests, want %d", n, tc.requests)
			}
			if tc.timeout != "" && s.Tasks()[0].Timeout != tc.timeout {
				t.Fatalf("task timeout %q, want %q", s.Tasks()[0].Timeout, tc.timeout)
			}
			if tc.version != 0 && (len(s.Tasks()) != 1 || s.Tasks()[0].Version != tc.version) {
				t.Fatalf("tasks %+v, want one against version %d", s.Tasks(), tc.version)
			}
			if n := bp.dials.Load(); n != 0 {
				t.Fatalf("exec --cloud touched the bridge port %d times", n)
			}
			for _, out := range []string{r.Stdout, r.Stderr} {
				if strings.Contains(out, cloudtest.Key) || strings.Contains(out, "not-the-key-0000") {
					t.Fatalf("the API key is in the output:\n%s", out)
				}
			}
		})
	}
}

func TestExecCloudJSON(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	s.Set(func(s *cloudtest.Server) {
		s.Default = cloudtest.Outcome{Results: []any{7, map[string]any{"a": "b"}}, Logs: logs}
	})
	r := runBinary(t, env(t, s, newBridgePort(t)), "exec", "--cloud", "--json", "return 7")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	ls := lines(r.Stdout)
	if len(ls) != len(logs)+1 {
		t.Fatalf("%d stdout lines, want one per log line and the document:\n%s", len(ls), r.Stdout)
	}
	wantLevels := []string{"Print", "Warning", "Error", "Info", "Print"}
	for i, l := range ls[:len(logs)] {
		var line struct {
			Level, Body string
			Timestamp   float64
			Seq         int
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil || line.Level != wantLevels[i] || line.Seq != i+1 || line.Timestamp == 0 {
			t.Fatalf("line %d %s: %v", i, l, err)
		}
	}
	var doc struct {
		Success      bool              `json:"success"`
		Logs         []map[string]any  `json:"logs"`
		ReturnValues []json.RawMessage `json:"returnValues"`
		TaskPath     string            `json:"taskPath"`
	}
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Success || len(doc.Logs) != len(logs) || len(doc.ReturnValues) != 2 || doc.TaskPath != s.Tasks()[0].Path {
		t.Fatalf("document %+v (task %s)", doc, s.Tasks()[0].Path)
	}

	// A script error is a result: the document on stdout, exit 1.
	s.Set(func(s *cloudtest.Server) {
		s.Default = cloudtest.Outcome{State: "FAILED", Code: "SCRIPT_ERROR", Message: "oops"}
	})
	r = runBinary(t, env(t, s, newBridgePort(t)), "exec", "--cloud", "--json", "error('oops')")
	var fail struct {
		Success  bool   `json:"success"`
		Error    string `json:"error"`
		TaskPath string `json:"taskPath"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &fail); err != nil || r.Code != 1 || fail.Success || fail.Error != "oops" || fail.TaskPath == "" {
		t.Fatalf("exit %d, stdout %s: %v", r.Code, r.Stdout, err)
	}
}

func TestExecCloudPlaceFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"build.rbxl", "build.rbxlx"} {
		s := cloudtest.New()
		file := filepath.Join(dir, name)
		body := []byte("place bytes of " + name)
		if err := os.WriteFile(file, body, 0o600); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, env(t, s, newBridgePort(t)), "exec", "--cloud", "--place-file", file, "--json", "return 1")
		s.Close()
		if r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, r.Code, r.Stderr)
		}
		ups := s.Uploads()
		if len(ups) != 1 || string(ups[0]) != string(body) {
			t.Fatalf("%s: uploads %q", name, ups)
		}
		tasks := s.Tasks()
		if len(tasks) != 1 || tasks[0].Version != 8 || !strings.Contains(tasks[0].Path, "/versions/8/") {
			t.Fatalf("%s: the task did not run against the uploaded version 8: %+v", name, tasks)
		}
	}

	s := cloudtest.New()
	defer s.Close()
	s.Set(func(s *cloudtest.Server) { s.Locked = true })
	file := filepath.Join(dir, "build.rbxl")
	r := runBinary(t, env(t, s, newBridgePort(t)), "exec", "--cloud", "--place-file", file, "return 1")
	if r.Code != 3 || !strings.Contains(r.Stderr, "locked") || len(s.Tasks()) != 0 {
		t.Fatalf("locked place: exit %d, %d tasks\n%s", r.Code, len(s.Tasks()), r.Stderr)
	}
}

// Every line streams; the document keeps a local exec's 10,000 and counts
// the rest.
func TestExecCloudManyLines(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	many := make([]string, 10005)
	for i := range many {
		many[i] = "line"
	}
	s.Set(func(s *cloudtest.Server) {
		s.Default = cloudtest.Outcome{Logs: many}
		s.PageSize = 4000
	})
	r := runBinary(t, env(t, s, newBridgePort(t)), "exec", "--cloud", "--json", "return 1")
	ls := lines(r.Stdout)
	if r.Code != 0 || len(ls) != len(many)+1 {
		t.Fatalf("exit %d, %d stdout lines\n%s", r.Code, len(ls), r.Stderr)
	}
	var doc struct {
		Logs        []json.RawMessage `json:"logs"`
		DroppedLogs int               `json:"droppedLogs"`
	}
	if err := json.Unmarshal([]byte(ls[len(ls)-1]), &doc); err != nil || len(doc.Logs) != 10000 || doc.DroppedLogs != 5 {
		t.Fatalf("document keeps %d lines, drops %d: %v", len(doc.Logs), doc.DroppedLogs, err)
	}
	if n := s.Count("GET", "/logs"); n != 3 {
		t.Fatalf("%d log pages read, want 3", n)
	}
}

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
	// one task (--parallel 1), and no upload cache left in this folder
	r := runBinary(t, env(t, s, bp), "test", "--cloud", "--place-file", place, "--root", "ReplicatedStorage.Tests", "--json", "--junit", junit, "--parallel", "1", "--no-upload-cache")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1 (a test failed)\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var doc struct {
		Passed, Failed int
		Tests          []struct{ Name, Status, File, Message string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("stdout is not the document: %v\n%s", err, r.Stdout)
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
	if r.Code != 2 || !strings.Contains(r.Stderr, "give --root") || len(s.Tasks()) != 1 {
		t.Fatalf("disk specs: exit %d\n%s", r.Code, r.Stderr)
	}
}
