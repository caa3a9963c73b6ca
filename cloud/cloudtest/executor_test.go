package cloudtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
)

// gate is an Executor whose tasks run until released (or their context
// ends), answering the job they ran.
type gate struct {
	mu      sync.Mutex
	started chan cloudtest.Job
	release chan struct{}
	ended   []error // each execution's ctx.Err() when it returned
}

func newGate() *gate {
	return &gate{started: make(chan cloudtest.Job, 16), release: make(chan struct{})}
}

func (g *gate) Execute(ctx context.Context, job cloudtest.Job) cloudtest.Outcome {
	g.started <- job
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	g.mu.Lock()
	g.ended = append(g.ended, ctx.Err())
	g.mu.Unlock()
	return cloudtest.Outcome{Results: []any{job.Script, job.Version}, Logs: []string{"OUTPUT: ran " + job.Script, "WARNING: careful"}}
}

// create makes a task with a raw request: the status and the task's path.
func create(t *testing.T, s *cloudtest.Server, version string, body string) (int, string) {
	t.Helper()
	url := s.URL + "/cloud/v2/universes/1/places/2/luau-execution-session-tasks"
	if version != "" {
		url = s.URL + "/cloud/v2/universes/1/places/2/versions/" + version + "/luau-execution-session-tasks"
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("x-api-key", cloudtest.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var out struct{ Path string }
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out.Path
}

// get reads a task (or its logs, with suffix "/logs?view=STRUCTURED").
func get(t *testing.T, s *cloudtest.Server, path string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+"/cloud/v2/"+path, nil)
	req.Header.Set("x-api-key", cloudtest.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitState polls until the task is in state (sync point: the server's
// own answers, no wall-clock bound beyond the test's).
func waitState(t *testing.T, s *cloudtest.Server, path, state string) map[string]any {
	t.Helper()
	for {
		got := get(t, s, path)
		if got["state"] == state {
			return got
		}
		if st, _ := got["state"].(string); st != "QUEUED" && st != "PROCESSING" {
			t.Fatalf("task %s ended %v, want %s", path, got, state)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// With an Executor a task is QUEUED until its start delay passes,
// PROCESSING while the executor runs, then the executor's outcome with
// its logs; the job names the version the task ran.
func TestExecutorRunsTasks(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	g := newGate()
	s.Set(func(s *cloudtest.Server) { s.Executor = g; s.ColdStart = time.Hour })
	_, first := create(t, s, "", `{"script":"a"}`)
	if st := get(t, s, first)["state"]; st != "QUEUED" {
		t.Fatalf("during its cold start the task is %v", st)
	}
	select {
	case job := <-g.started:
		t.Fatalf("%+v ran before its start delay", job)
	default:
	}
	s.Set(func(s *cloudtest.Server) { s.WarmStart = 0 }) // the next task is warm
	_, path := create(t, s, "", `{"script":"b","timeout":"60s"}`)
	job := <-g.started
	if job.Script != "b" || job.Version != 7 || job.Place != 2 || job.Universe != 1 || job.Timeout != time.Minute {
		t.Fatalf("job %+v", job)
	}
	waitState(t, s, path, "PROCESSING")
	if logs := get(t, s, path+"/logs?view=STRUCTURED"); strings.Contains(mustJSON(logs), "ran b") {
		t.Fatalf("logs while running: %v", logs)
	}
	g.release <- struct{}{}
	done := waitState(t, s, path, "COMPLETE")
	if got := mustJSON(done["output"]); got != `{"results":["b",7]}` {
		t.Fatalf("output %s", got)
	}
	s.Set(func(s *cloudtest.Server) { s.PageSize = 10 })
	if logs := mustJSON(get(t, s, path+"/logs?view=STRUCTURED")); !strings.Contains(logs, `"message":"ran b","messageType":"OUTPUT"`) || !strings.Contains(logs, `"messageType":"WARNING"`) {
		t.Fatalf("logs %s", logs)
	}
}

// Unfinished executor tasks count against the place's limit (429); a
// task that outlives its timeout fails with DEADLINE_EXCEEDED, its
// execution told to stop; Close ends the rest and waits for them.
func TestExecutorLimitDeadlineClose(t *testing.T) {
	s := cloudtest.New()
	g := newGate()
	s.Set(func(s *cloudtest.Server) { s.Executor = g; s.MaxUnfinished = 2 })
	_, slow := create(t, s, "", `{"script":"slow","timeout":"0.05s"}`)
	_, held := create(t, s, "", `{"script":"held"}`)
	if code, _ := create(t, s, "", `{"script":"third"}`); code != http.StatusTooManyRequests {
		t.Fatalf("the third unfinished task: HTTP %d, want 429", code)
	}
	<-g.started
	<-g.started
	failed := waitState(t, s, slow, "FAILED")
	if got := mustJSON(failed["error"]); !strings.Contains(got, "DEADLINE_EXCEEDED") {
		t.Fatalf("error %s", got)
	}
	if code, _ := create(t, s, "", `{"script":"fourth"}`); code != http.StatusOK {
		t.Fatalf("after a task ended: HTTP %d", code)
	}
	<-g.started
	s.Close()
	if st := get2(s, held); st != "" {
		t.Fatalf("the server still answers after Close: %s", st)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.ended) != 3 {
		t.Fatalf("%d executions returned before Close did, want 3", len(g.ended))
	}
	for _, err := range g.ended {
		if err == nil {
			t.Fatalf("an execution ended without its context ending: %v", g.ended)
		}
	}
}

// An unpinned task the server races runs the version before the latest;
// a pinned one runs what it names.
func TestExecutorRace(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	g := newGate()
	close(g.release)
	s.Set(func(s *cloudtest.Server) { s.Executor = g; s.Race = 1 })
	create(t, s, "", `{"script":"a"}`)
	if job := <-g.started; job.Version != 6 {
		t.Fatalf("raced task ran version %d", job.Version)
	}
	create(t, s, "7", `{"script":"b"}`)
	if job := <-g.started; job.Version != 7 {
		t.Fatalf("pinned task ran version %d", job.Version)
	}
}

func get2(s *cloudtest.Server, path string) string {
	c := http.Client{Timeout: time.Second}
	res, err := c.Get(s.URL + "/cloud/v2/" + path)
	if err != nil {
		return ""
	}
	defer func() { _ = res.Body.Close() }()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
