package cloud_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud"
	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
)

// fast returns a client against s with waits shortened for tests.
func fast(s *cloudtest.Server) *cloud.Client {
	c := cloud.New(s.URL, cloudtest.Key)
	c.PollMin, c.PollMax = time.Millisecond, 5*time.Millisecond
	c.BackoffMin, c.BackoffMax = time.Millisecond, 5*time.Millisecond
	c.Grace = 200 * time.Millisecond
	c.RequestTimeout = 5 * time.Second
	return c
}

func task(script string) cloud.Task {
	return cloud.Task{Script: script, UniverseID: 1, PlaceID: 2, Timeout: 30 * time.Second}
}

// noKey fails the test if text carries the API key.
func noKey(t *testing.T, text string) {
	t.Helper()
	if strings.Contains(text, cloudtest.Key) {
		t.Fatalf("the API key leaked into %q", text)
	}
}

func collect(lines *[]string) func(cloud.Line) {
	return func(l cloud.Line) { *lines = append(*lines, l.Type+" "+l.Message) }
}

func TestRunOutcomes(t *testing.T) {
	logs := []string{"one", "WARNING: two", "ERROR: three", "INFO: four", "five"}
	want := []string{"OUTPUT one", "WARNING two", "ERROR three", "INFO four", "OUTPUT five"}
	cases := []struct {
		name      string
		out       cloudtest.Outcome
		state     cloud.State
		code      string
		failKind  cloud.Kind
		results   string
		streaming bool
	}{
		{name: "complete", out: cloudtest.Outcome{Results: []any{1, "a", map[string]any{"k": true}}, Logs: logs}, state: cloud.StateComplete, results: `[1,"a",{"k":true}]`},
		{name: "complete, logs while running", out: cloudtest.Outcome{Processing: 8, Results: []any{2}, Logs: logs}, state: cloud.StateComplete, results: `[2]`, streaming: true},
		{name: "no results", out: cloudtest.Outcome{}, state: cloud.StateComplete, results: `[]`},
		{name: "script error", out: cloudtest.Outcome{State: "FAILED", Code: "SCRIPT_ERROR", Message: "boom", Logs: logs}, state: cloud.StateFailed, code: "SCRIPT_ERROR"},
		{name: "deadline", out: cloudtest.Outcome{State: "FAILED", Code: "DEADLINE_EXCEEDED", Message: "late", Logs: logs}, state: cloud.StateFailed, code: "DEADLINE_EXCEEDED", failKind: cloud.KindTimeout},
		{name: "output too large", out: cloudtest.Outcome{State: "FAILED", Code: "OUTPUT_SIZE_LIMIT_EXCEEDED", Logs: logs}, state: cloud.StateFailed, code: "OUTPUT_SIZE_LIMIT_EXCEEDED", failKind: cloud.KindTaskFailed},
		{name: "internal error", out: cloudtest.Outcome{State: "FAILED", Code: "INTERNAL_ERROR", Logs: logs}, state: cloud.StateFailed, code: "INTERNAL_ERROR", failKind: cloud.KindTaskFailed},
		{name: "cancelled", out: cloudtest.Outcome{State: "CANCELLED", Logs: logs}, state: cloud.StateCancelled, code: "CANCELLED", failKind: cloud.KindTaskFailed},
	}
	for _, tc := range cases {
		for _, whileRunning := range []bool{false, true} {
			name := tc.name
			if whileRunning {
				name += "/server streams"
			}
			t.Run(name, func(t *testing.T) {
				s := cloudtest.New()
				defer s.Close()
				s.Set(func(s *cloudtest.Server) { s.LogsWhileRunning = whileRunning })
				canned := tc.out // walk QUEUED and PROCESSING at least once
				canned.Queued, canned.Processing = max(canned.Queued, 1), max(canned.Processing, 1)
				s.Set(func(s *cloudtest.Server) { s.Scripts["x"] = canned })
				var got []string
				var pollsAtFirstLine = -1
				out, err := fast(s).Run(context.Background(), task("x"), func(l cloud.Line) {
					if pollsAtFirstLine < 0 {
						pollsAtFirstLine = s.Tasks()[0].Polls
					}
					got = append(got, l.Type+" "+l.Message)
				})
				if err != nil {
					t.Fatal(err)
				}
				if out.State != tc.state {
					t.Fatalf("state %s, want %s", out.State, tc.state)
				}
				wantLines := want
				if tc.out.Logs == nil {
					wantLines = nil
				}
				if strings.Join(got, "|") != strings.Join(wantLines, "|") || out.Lines != len(wantLines) {
					t.Fatalf("lines %q (%d), want %q: each once, in order", got, out.Lines, wantLines)
				}
				if tc.results != "" {
					b, _ := json.Marshal(out.Results)
					if string(b) != tc.results {
						t.Fatalf("results %s, want %s", b, tc.results)
					}
				}
				if tc.code != "" && (out.Error == nil || out.Error.Code != tc.code) {
					t.Fatalf("error %+v, want code %s", out.Error, tc.code)
				}
				if k := cloud.KindOf(out.Failure()); k != tc.failKind {
					t.Fatalf("Failure() kind %d (%v), want %d", k, out.Failure(), tc.failKind)
				}
				if f := out.Failure(); f != nil && !strings.Contains(f.Error(), out.TaskPath) {
					t.Fatalf("failure %q does not name the task", f)
				}
				// Streamed while running: the first line arrived before
				// the poll that saw the task end.
				if tc.streaming && whileRunning && pollsAtFirstLine >= 1+tc.out.Processing+1 {
					t.Fatalf("first line arrived at poll %d: not streamed while the task ran", pollsAtFirstLine)
				}
				if tc.streaming && !whileRunning && pollsAtFirstLine < 1+tc.out.Processing+1 {
					t.Fatalf("first line at poll %d, before the task ended, though the server serves no running logs", pollsAtFirstLine)
				}
			})
		}
	}
}

func TestRunPollsExactlyTheReturnedPath(t *testing.T) {
	for _, short := range []bool{false, true} {
		s := cloudtest.New()
		s.Set(func(s *cloudtest.Server) { s.ShortPath = short })
		out, err := fast(s).Run(context.Background(), task("x"), nil)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.TaskPath, "/versions/") == short {
			t.Fatalf("short=%v: path %s", short, out.TaskPath)
		}
		for _, r := range s.Requests() {
			if r.Method == "GET" && strings.TrimSuffix(strings.TrimPrefix(r.Path, "/cloud/v2/"), "/logs") != out.TaskPath {
				t.Fatalf("GET %s is not the returned path %s", r.Path, out.TaskPath)
			}
			if r.Method == "GET" && strings.HasSuffix(r.Path, "/logs") && !strings.Contains(r.Query, "view=STRUCTURED") {
				t.Fatalf("logs read without view=STRUCTURED: %s", r.Query)
			}
			if !r.KeyOK {
				t.Fatalf("%s %s without the key", r.Method, r.Path)
			}
		}
	}
}

func TestRunSendsTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{{2 * time.Minute, "120s"}, {10 * time.Minute, "300s"}, {1500 * time.Millisecond, "1s"}} {
		s := cloudtest.New()
		tk := task("x")
		tk.Timeout = tc.in
		if _, err := fast(s).Run(context.Background(), tk, nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if got := s.Tasks()[0].Timeout; got != tc.want {
			t.Fatalf("timeout %s sent as %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRunRetriesAndRefusals(t *testing.T) {
	cases := []struct {
		name    string
		faults  []cloudtest.Fault
		key     string
		task    func(*cloud.Task)
		kind    cloud.Kind // 0: succeeds
		creates int        // tasks the server holds afterwards
		says    []string
	}{
		{name: "429 with Retry-After", faults: []cloudtest.Fault{{Endpoint: "create", Status: 429, Header: map[string]string{"Retry-After": "0"}, Times: 2}}, creates: 1},
		{name: "429 with x-ratelimit-reset", faults: []cloudtest.Fault{{Endpoint: "create", Status: 429, Header: map[string]string{"x-ratelimit-reset": "0"}}}, creates: 1},
		{name: "429 with no header", faults: []cloudtest.Fault{{Endpoint: "create", Status: 429}}, creates: 1},
		{name: "429 on poll and logs", faults: []cloudtest.Fault{{Endpoint: "get", Status: 429}, {Endpoint: "logs", Status: 429, Header: map[string]string{"Retry-After": "0"}}}, creates: 1},
		{name: "503 before acceptance", faults: []cloudtest.Fault{{Endpoint: "create", Status: 503, Times: 2}}, creates: 1},
		{name: "429 every time", faults: []cloudtest.Fault{{Endpoint: "create", Status: 429, Times: 100}}, kind: cloud.KindRateLimited, says: []string{"rate limited", "gave up after 4 attempts"}},
		{name: "Retry-After too long", faults: []cloudtest.Fault{{Endpoint: "create", Status: 429, Header: map[string]string{"Retry-After": "3600"}}}, kind: cloud.KindRateLimited, says: []string{"asked to wait 1h0m0s"}},
		{name: "answer lost", faults: []cloudtest.Fault{{Endpoint: "create", Drop: true}}, kind: cloud.KindUnknownOutcome, creates: 1, says: []string{"may or may not have been created", "not sent again"}},
		{name: "wrong key", key: "wrong-key-xyz", kind: cloud.KindAuth, says: []string{"ROBLOX_API_KEY", cloud.PermExecWrite, cloud.PermExecRead, "HTTP 401"}},
		{name: "forbidden", faults: []cloudtest.Fault{{Endpoint: "create", Status: 403}}, kind: cloud.KindAuth, says: []string{"ROBLOX_API_KEY", cloud.PermExecWrite, "HTTP 403"}},
		{name: "no such place", task: func(t *cloud.Task) { t.PlaceID = 99 }, kind: cloud.KindNotFound, says: []string{"universe 1, place 99", "not found"}},
		{name: "no such version", task: func(t *cloud.Task) { t.Version = 42 }, kind: cloud.KindNotFound, says: []string{"universe 1, place 2, version 42"}},
		{name: "an answer that echoes the key", faults: []cloudtest.Fault{{Endpoint: "create", Status: 400, Body: []byte(`{"code":"INVALID_ARGUMENT","message":"bad header x-api-key: ` + cloudtest.Key + `"}`)}}, kind: cloud.KindRejected, says: []string{"[API key]"}},
		{name: "poll refused", faults: []cloudtest.Fault{{Endpoint: "get", Status: 403}}, kind: cloud.KindAuth, creates: 1, says: []string{"get task", "tasks/"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cloudtest.New()
			defer s.Close()
			for _, f := range tc.faults {
				s.Inject(f)
			}
			c := fast(s)
			c.Attempts = 4
			if tc.key != "" {
				c = cloud.New(s.URL, tc.key)
				c.PollMin = time.Millisecond
			}
			tk := task("x")
			if tc.task != nil {
				tc.task(&tk)
			}
			_, err := c.Run(context.Background(), tk, nil)
			if cloud.KindOf(err) != tc.kind {
				t.Fatalf("error %v (kind %d), want kind %d", err, cloud.KindOf(err), tc.kind)
			}
			if n := len(s.Tasks()); n != tc.creates {
				t.Fatalf("the server holds %d tasks, want %d", n, tc.creates)
			}
			if err != nil {
				for _, w := range tc.says {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("%q does not say %q", err, w)
					}
				}
				noKey(t, err.Error())
				if tc.key != "" && strings.Contains(err.Error(), tc.key) {
					t.Fatalf("the key leaked: %q", err)
				}
			}
		})
	}
}

func TestRunTaskThatNeverFinishes(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	s.Set(func(s *cloudtest.Server) { s.Default = cloudtest.Outcome{Never: true} })
	tk := task("x")
	tk.Timeout = 10 * time.Millisecond
	_, err := fast(s).Run(context.Background(), tk, nil)
	var e *cloud.Error
	if !errors.As(err, &e) || e.Kind != cloud.KindTimeout || e.TaskPath == "" || !strings.Contains(err.Error(), "may still be running") {
		t.Fatalf("got %v, want a timeout naming the task", err)
	}
}

func TestRunInterrupted(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	s.Set(func(s *cloudtest.Server) { s.Default = cloudtest.Outcome{Never: true} })
	ctx, cancel := context.WithCancel(context.Background())
	c := fast(s)
	c.Log = nil
	go func() {
		for len(s.Tasks()) == 0 || s.Tasks()[0].Polls < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Run(ctx, task("x"), nil)
	if !errors.Is(err, context.Canceled) || cloud.KindOf(err) != cloud.KindInterrupted {
		t.Fatalf("got %v, want an interruption", err)
	}
	if p := s.Tasks()[0].Path; !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "runs on") {
		t.Fatalf("%q does not name the task %s and say it runs on", err, p)
	}
}

func TestUploadPlace(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, ctype string
		locked      bool
		kind        cloud.Kind
	}{
		{file: "build.rbxl", ctype: "application/octet-stream"},
		{file: "build.rbxlx", ctype: "application/xml"},
		{file: "build.rbxl", locked: true, kind: cloud.KindLocked},
	} {
		s := cloudtest.New()
		s.Set(func(s *cloudtest.Server) { s.Locked = tc.locked })
		path := filepath.Join(dir, tc.file)
		if err := os.WriteFile(path, []byte("<roblox "+tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		c := fast(s)
		v, err := c.UploadPlace(context.Background(), 1, 2, path)
		if cloud.KindOf(err) != tc.kind {
			t.Fatalf("%s: %v, want kind %d", tc.file, err, tc.kind)
		}
		if tc.kind == cloud.KindLocked {
			if !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), "place 2") {
				t.Fatalf("%q does not say the place is locked", err)
			}
			s.Close()
			continue
		}
		if v != 8 {
			t.Fatalf("version %d, want 8", v)
		}
		var up cloudtest.Request
		for _, r := range s.Requests() {
			if r.Method == "POST" && strings.HasPrefix(r.Path, "/universes/v1/") {
				up = r
			}
		}
		if up.ContentType != tc.ctype || up.Query != "versionType=Saved" {
			t.Fatalf("upload sent %q with %q", up.ContentType, up.Query)
		}
		tk := task("x")
		tk.Version = v
		out, err := c.Run(context.Background(), tk, nil)
		if err != nil || !strings.Contains(out.TaskPath, "/versions/8/") || s.Tasks()[0].Version != 8 {
			t.Fatalf("run against version %d: %v %+v", v, err, out)
		}
		s.Close()
	}
	if _, err := cloud.PlaceContentType("place.rbxm"); err == nil {
		t.Fatal("a .rbxm was taken for a place")
	}
}

func TestRunRefusesBadTasksBeforeAnyRequest(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	for _, tk := range []cloud.Task{
		{Script: "x", PlaceID: 2},
		{Script: "x", UniverseID: 1},
		{Script: strings.Repeat("x", cloud.MaxScriptBytes+1), UniverseID: 1, PlaceID: 2},
	} {
		if _, err := fast(s).Run(context.Background(), tk, nil); err == nil {
			t.Fatal("accepted a bad task")
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// A host name that does not resolve is said at once, not retried: only a
// temporary resolver failure is worth another try.
func TestUnknownHostIsNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   *net.DNSError
		tries int
	}{
		{"no such host", &net.DNSError{Err: "no such host", Name: "apis.example.invalid", IsNotFound: true}, 1},
		{"resolver timed out", &net.DNSError{Err: "i/o timeout", Name: "apis.example.invalid", IsTimeout: true, IsTemporary: true}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tries atomic.Int32
			c := cloud.New("https://apis.example.invalid", cloudtest.Key)
			c.BackoffMin, c.BackoffMax = time.Millisecond, time.Millisecond
			c.Attempts = 3
			c.HTTP = &http.Client{Transport: roundTrip(func(*http.Request) (*http.Response, error) {
				tries.Add(1)
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: tc.err}
			})}
			_, err := c.Run(context.Background(), task("x"), nil)
			if cloud.KindOf(err) != cloud.KindUnavailable || int(tries.Load()) != tc.tries {
				t.Fatalf("%v after %d tries, want unavailable after %d", err, tries.Load(), tc.tries)
			}
			if tc.tries == 1 && !strings.Contains(err.Error(), "its host name does not resolve") {
				t.Fatalf("%v, want it to say the name does not resolve", err)
			}
		})
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestBadRequestIsNotRetried(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	s.Inject(cloudtest.Fault{Endpoint: "create", Status: 400})
	_, err := fast(s).Run(context.Background(), task("x"), nil)
	if cloud.KindOf(err) != cloud.KindRejected || !strings.Contains(err.Error(), "HTTP 400") || s.Count("POST", "luau-execution-session-tasks") != 1 {
		t.Fatalf("got %v after %d creates", err, s.Count("POST", "luau-execution-session-tasks"))
	}
}

// TestBoundsAndTimeouts: an oversized answer is refused by its size, and an
// answer that never comes by the request timeout. The size cases get a
// request timeout far beyond any machine's time to move a few MiB over
// loopback, and every attempt meets the oversized body, so what they check
// is the bound, not how fast the body is read (with a 100 ms timeout the
// read itself timed out under -race on 2 vCPUs, and the retry succeeded).
func TestBoundsAndTimeouts(t *testing.T) {
	const tiny, ample = 100 * time.Millisecond, 5 * time.Minute
	cases := []struct {
		name    string
		fault   cloudtest.Fault
		timeout time.Duration
		kind    cloud.Kind
		says    string
	}{
		{name: "task answer over 5 MiB", fault: cloudtest.Fault{Endpoint: "get", Body: []byte(`{"path":"` + strings.Repeat("x", 6<<20) + `"}`), Times: 10}, timeout: ample, kind: cloud.KindUnavailable, says: "larger than 5 MiB"},
		{name: "log page over 2 MiB", fault: cloudtest.Fault{Endpoint: "logs", Body: []byte(`{"x":"` + strings.Repeat("x", 3<<20) + `"}`), Times: 10}, timeout: ample, kind: 0},
		{name: "poll never answered", fault: cloudtest.Fault{Endpoint: "get", Hang: true, Times: 10}, timeout: tiny, kind: cloud.KindUnavailable, says: "gave up after 3 attempts"},
		{name: "create never answered", fault: cloudtest.Fault{Endpoint: "create", Hang: true}, timeout: tiny, kind: cloud.KindUnknownOutcome, says: "not sent again"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cloudtest.New()
			defer s.Close()
			s.Inject(tc.fault)
			c := fast(s)
			c.RequestTimeout, c.Attempts = tc.timeout, 3
			out, err := c.Run(context.Background(), task("x"), nil)
			if cloud.KindOf(err) != tc.kind {
				t.Fatalf("got %v (kind %d), want kind %d", err, cloud.KindOf(err), tc.kind)
			}
			if err != nil && !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("%q does not say %q", err, tc.says)
			}
			if tc.kind == 0 && (out.LogsErr == nil || !strings.Contains(out.LogsErr.Error(), "larger than 2 MiB")) {
				t.Fatalf("an oversized log page: LogsErr %v, want a bound", out.LogsErr)
			}
		})
	}
}

// A server that refuses logs until the task ends still yields every line,
// once, and no error.
func TestRunLogsRefusedWhileRunning(t *testing.T) {
	for _, status := range []int{400, 404, 429, 500} {
		s := cloudtest.New()
		s.Set(func(s *cloudtest.Server) {
			s.RunningLogsStatus = status
			s.Default = cloudtest.Outcome{Queued: 1, Processing: 4, Logs: []string{"a", "b", "c"}}
		})
		var got []string
		out, err := fast(s).Run(context.Background(), task("x"), collect(&got))
		s.Close()
		if err != nil || out.LogsErr != nil || strings.Join(got, "|") != "OUTPUT a|OUTPUT b|OUTPUT c" {
			t.Fatalf("status %d: %v, %v, lines %q", status, err, out.LogsErr, got)
		}
	}
}
