// Package cloudtest is a stand-in for Roblox Open Cloud's Luau Execution
// and place publishing endpoints, following the public reference
// (https://create.roblox.com/docs/cloud/reference/features/luau-execution),
// for tests of package cloud and of `studio-bridge exec --cloud`.
//
// It is not a Luau VM: a test registers a canned Outcome per script (or a
// default, or a Runner that answers from the script, such as a Suite), and
// the server walks each task through QUEUED and PROCESSING to that outcome,
// one state per poll, or in time when the outcome or the server has delays
// (cold and warm starts, an outcome's Delay). With an Executor the script
// really runs (test/emulator runs it in the emulator's Luau runtime against
// a Rojo project; uploaded place files are never interpreted), and the
// task is PROCESSING until it ends. Like the reference it runs at
// most MaxUnfinished unfinished tasks per place (the next create gets 429),
// and it can make unpinned tasks land on another version (Race). Faults
// (429 with or without Retry-After, 5xx, a dropped connection) are
// injected per endpoint.
package cloudtest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Key is the API key the server accepts unless Server.Key is changed.
const Key = "test-key-0123456789abcdef"

// Outcome is what a task "does".
type Outcome struct {
	// Queued and Processing are how many polls answer each state before
	// the task ends (the create itself answers QUEUED).
	Queued, Processing int
	// State is the final state: COMPLETE (default), FAILED or CANCELLED.
	State string
	// Results are the return values of a COMPLETE task.
	Results []any
	// Code and Message are a FAILED task's error.
	Code, Message string
	// Logs are the task's log lines: "Type: text" (OUTPUT, INFO, WARNING,
	// ERROR), or plain text for OUTPUT.
	Logs []string
	// Never keeps the task PROCESSING forever.
	Never bool
	// Delay is how long the task runs once started (wall time); a task
	// whose Delay exceeds its timeout fails with DEADLINE_EXCEEDED then.
	// With Delay (or a server's start delays) states follow the clock,
	// not polls.
	Delay time.Duration
}

// Fault answers matching requests instead of the endpoint.
type Fault struct {
	// Endpoint: "create", "get", "logs" or "upload".
	Endpoint string
	// Status and Header form the answer (e.g. 429 with Retry-After).
	Status int
	Header map[string]string
	// Drop closes the connection without an answer, after the endpoint
	// has done its work (a create whose answer is lost).
	Drop bool
	// Hang never answers: the request waits until the client gives up.
	Hang bool
	// Body, when set, is the answer's body (with Status, default 200).
	Body []byte
	// Times is how many requests it catches (default 1).
	Times int
}

// Request is one request the server saw.
type Request struct {
	Method, Path, Query, ContentType string
	// KeyOK reports whether x-api-key was the accepted key.
	KeyOK bool
	Body  []byte
}

// Server is the stand-in. Configure it before the client runs.
type Server struct {
	*httptest.Server
	mu sync.Mutex
	// Key is the accepted API key.
	Key string
	// Universe and Place are the one place that exists; Versions is its
	// latest version number.
	Universe, Place int64
	Versions        int64
	// Locked makes uploads answer 409.
	Locked bool
	// LogsWhileRunning serves log lines while a task is PROCESSING (one
	// more line per poll); otherwise logs read empty until it ends.
	LogsWhileRunning bool
	// RunningLogsStatus, when set, answers log reads of an unfinished
	// task with that HTTP status (another way the real API might refuse).
	RunningLogsStatus int
	// PageSize is the log lines per page (default 2).
	PageSize int
	// Scripts maps a script to its outcome; Default serves the rest.
	Scripts map[string]Outcome
	Default Outcome
	// ShortPath answers paths without the versions/… segment when the
	// create named no version (the reference allows both forms).
	ShortPath bool
	// Runner, when set, decides each task's outcome from its script and
	// the place version it runs (before Scripts and Default).
	Runner func(script string, version int64) Outcome
	// OtherPlaces are more places of the universe: place ID → latest
	// version (Place's is Versions).
	OtherPlaces map[int64]int64
	// MaxUnfinished is how many unfinished tasks a place runs; the next
	// create is refused with 429 (the reference's limit: 10). 0 means 10;
	// RetryAfter, when set, goes with that 429 as Retry-After.
	MaxUnfinished int
	RetryAfter    string
	// ColdStart and WarmStart delay a task's start: cold on the first task
	// of a place version (a server must load it), warm after.
	ColdStart, WarmStart time.Duration
	// Race makes the next Race unpinned tasks run the version before the
	// latest (a server still on it, or another job's upload in between).
	Race int
	// Executor, when set, runs every task's script (before Runner,
	// Scripts and Default), after the task's start delay.
	Executor Executor

	faults   []*Fault
	warm     map[string]bool // "place/version" with a started server
	refused  int             // creates refused for the per-place limit
	tasks    map[string]*task
	requests []Request
	uploads  [][]byte
	next     int
	// executions: ctx ends when the server closes; wg waits for them
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type task struct {
	out     Outcome
	polls   int
	place   int64
	version int64
	script  string
	timeout string
	pinned  bool
	// timed tasks follow the clock: QUEUED until start, PROCESSING until
	// end, then final (or DEADLINE_EXCEEDED when deadline cut it).
	timed      bool
	start, end time.Time
	deadline   bool
	// exec tasks run on an Executor: QUEUED until running, PROCESSING
	// until done
	exec, running, done bool
}

// New starts a stand-in with universe 1, place 2 at version 7.
func New() *Server {
	s := &Server{Key: Key, Universe: 1, Place: 2, Versions: 7, PageSize: 2, Scripts: map[string]Outcome{}, tasks: map[string]*task{},
		OtherPlaces: map[int64]int64{}, warm: map[string]bool{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close ends the executions still running (their tasks end CANCELLED),
// waits for them, and stops the server.
func (s *Server) Close() {
	s.cancel()
	s.wg.Wait()
	s.Server.Close()
}

// Set changes the server's settings while it may be serving.
func (s *Server) Set(f func(*Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	s.faults = append(s.faults, &f)
}

// Requests returns the requests seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count counts requests whose path ends with suffix and method matches.
func (s *Server) Count(method, suffix string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			n++
		}
	}
	return n
}

// Uploads returns the bodies of accepted uploads.
func (s *Server) Uploads() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.uploads...)
}

// TaskInfo is what the server knows of a created task.
type TaskInfo struct {
	Path, Script, Timeout string
	Place, Version        int64
	// Pinned reports a create that named the version.
	Pinned bool
	Polls  int
}

// Tasks lists the created tasks.
func (s *Server) Tasks() []TaskInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []TaskInfo
	for p, t := range s.tasks {
		out = append(out, TaskInfo{Path: p, Script: t.script, Timeout: t.timeout, Place: t.place, Version: t.version, Pinned: t.pinned, Polls: t.polls})
	}
	return out
}

// RaceOutcome counts, for a run against version whose unpinned tasks
// raced onto version-1 (Race), the tasks that ran raced and the re-runs
// pinned to version (a re-run carries no in-task version check).
func (s *Server) RaceOutcome(version int64) (raced, pinned int) {
	for _, tk := range s.Tasks() {
		switch {
		case !tk.Pinned && tk.Version == version-1:
			raced++
		case tk.Pinned && tk.Version == version && !strings.Contains(tk.Script, "placeVersion="):
			pinned++
		}
	}
	return raced, pinned
}

func (s *Server) fault(endpoint string) *Fault {
	for _, f := range s.faults {
		if f.Endpoint == endpoint && f.Times > 0 {
			f.Times--
			return f
		}
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 600<<20))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, ContentType: r.Header.Get("Content-Type"), KeyOK: r.Header.Get("x-api-key") == s.Key, Body: body})
	endpoint, ok := s.route(r)
	if !ok {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint")
		return
	}
	f := s.fault(endpoint)
	if f != nil && f.Hang {
		s.mu.Unlock()
		<-r.Context().Done()
		s.mu.Lock()
		return
	}
	if f != nil && f.Body != nil {
		w.WriteHeader(cmp.Or(f.Status, http.StatusOK))
		_, _ = w.Write(f.Body)
		return
	}
	if f != nil && !f.Drop {
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		apiError(w, f.Status, "INJECTED", http.StatusText(f.Status))
		return
	}
	if r.Header.Get("x-api-key") != s.Key {
		apiError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Invalid API Key")
		return
	}
	w.Header().Set("x-ratelimit-limit", "1000, 1000;w=60")
	w.Header().Set("x-ratelimit-remaining", "998")
	w.Header().Set("x-ratelimit-reset", "20")
	var status int
	var answer any
	switch endpoint {
	case "create":
		status, answer = s.create(r, body)
	case "get":
		status, answer = s.get(r.URL.Path)
	case "logs":
		status, answer = s.logs(r)
	case "upload":
		status, answer = s.upload(r, body)
	}
	if f != nil { // Drop: the work is done, the answer is lost
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	if ra, ok := answer.(retryAfterBody); ok {
		w.Header().Set("Retry-After", ra.seconds)
		answer = errBody("RESOURCE_EXHAUSTED", "Too many unfinished tasks for this place.")
	}
	writeJSON(w, status, answer)
}

func (s *Server) route(r *http.Request) (string, bool) {
	p := r.URL.Path
	switch {
	case r.Method == "POST" && strings.HasPrefix(p, "/cloud/v2/universes/") && strings.HasSuffix(p, "/luau-execution-session-tasks"):
		return "create", true
	case r.Method == "GET" && strings.HasPrefix(p, "/cloud/v2/universes/") && strings.HasSuffix(p, "/logs"):
		return "logs", true
	case r.Method == "GET" && strings.HasPrefix(p, "/cloud/v2/universes/") && strings.Contains(p, "/tasks/"):
		return "get", true
	case r.Method == "POST" && strings.HasPrefix(p, "/universes/v1/") && strings.HasSuffix(p, "/versions"):
		return "upload", true
	}
	return "", false
}

func (s *Server) create(r *http.Request, body []byte) (int, any) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/cloud/v2/"), "/")
	// universes/U/places/P[/versions/V]/luau-execution-session-tasks
	if len(parts) < 5 || parts[0] != "universes" || parts[2] != "places" {
		return http.StatusNotFound, errBody("NOT_FOUND", "bad path")
	}
	u, _ := strconv.ParseInt(parts[1], 10, 64)
	pl, _ := strconv.ParseInt(parts[3], 10, 64)
	latest, known := s.latest(pl)
	if u != s.Universe || !known {
		return http.StatusNotFound, errBody("NOT_FOUND", "The place does not exist.")
	}
	version, explicit := latest, false
	if len(parts) == 7 && parts[4] == "versions" {
		v, err := strconv.ParseInt(parts[5], 10, 64)
		if err != nil || v < 1 || v > latest {
			return http.StatusNotFound, errBody("NOT_FOUND", "The place version does not exist.")
		}
		version, explicit = v, true
	}
	var in struct {
		Script  string `json:"script"`
		Timeout string `json:"timeout"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Script == "" {
		return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "script is required")
	}
	if len(in.Script) > 4<<20 {
		return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "script too large")
	}
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil || d <= 0 || d > 5*time.Minute || !strings.HasSuffix(in.Timeout, "s") {
			return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "timeout must be a duration in seconds up to 300s")
		}
	}
	if s.unfinished(pl) >= cmp.Or(s.MaxUnfinished, 10) {
		s.refused++
		if s.RetryAfter != "" {
			return http.StatusTooManyRequests, retryAfterBody{s.RetryAfter}
		}
		return http.StatusTooManyRequests, errBody("RESOURCE_EXHAUSTED", "Too many unfinished tasks for this place.")
	}
	if !explicit && s.Race > 0 && version > 1 {
		s.Race--
		version--
	}
	out, ok := s.Scripts[in.Script]
	switch {
	case s.Executor != nil:
		out = Outcome{}
	case s.Runner != nil:
		out = s.Runner(in.Script, version)
	case !ok:
		out = s.Default
	}
	s.next++
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", s.next)
	path := fmt.Sprintf("universes/%d/places/%d/versions/%d/luau-execution-sessions/%s/tasks/%s", u, pl, version, id, id)
	if s.ShortPath && !explicit {
		path = fmt.Sprintf("universes/%d/places/%d/luau-execution-sessions/%s/tasks/%s", u, pl, id, id)
	}
	t := &task{out: out, place: pl, version: version, script: in.Script, timeout: in.Timeout, pinned: explicit}
	if s.Executor != nil {
		t.exec = true
		limit, _ := time.ParseDuration(cmp.Or(in.Timeout, "300s"))
		s.wg.Add(1)
		go s.execute(t, Job{Universe: u, Place: pl, Version: version, Script: in.Script, Timeout: limit}, s.startup(pl, version))
	} else if out.Delay > 0 || s.ColdStart > 0 || s.WarmStart > 0 {
		t.timed = true
		now := time.Now()
		t.start = now.Add(s.startup(pl, version))
		t.end = t.start.Add(out.Delay)
		if limit, err := time.ParseDuration(cmp.Or(in.Timeout, "300s")); err == nil && out.Delay > limit {
			t.end, t.deadline = t.start.Add(limit), true
		}
	}
	s.tasks[path] = t
	return http.StatusOK, map[string]any{"path": path, "user": "1", "state": "QUEUED", "script": in.Script, "createTime": time.Now().UTC().Format(time.RFC3339Nano)}
}

// startup is a new task's start delay: cold for the first task of a
// place version (a server must load it), warm after.
func (s *Server) startup(place, version int64) time.Duration {
	key := fmt.Sprintf("%d/%d", place, version)
	if !s.warm[key] {
		s.warm[key] = true
		return s.ColdStart
	}
	return s.WarmStart
}

// state is the task's state after its polls so far (or, timed, now; or,
// on an executor, as far as it got).
func (t *task) state() string {
	if t.exec {
		switch {
		case !t.running:
			return "QUEUED"
		case !t.done:
			return "PROCESSING"
		case t.deadline:
			return "FAILED"
		case t.out.State != "":
			return t.out.State
		}
		return "COMPLETE"
	}
	if t.timed {
		now := time.Now()
		switch {
		case now.Before(t.start):
			return "QUEUED"
		case now.Before(t.end) || t.out.Never:
			return "PROCESSING"
		case t.deadline:
			return "FAILED"
		case t.out.State != "":
			return t.out.State
		}
		return "COMPLETE"
	}
	q, p := t.out.Queued, t.out.Processing
	switch {
	case t.polls == 0:
		return "QUEUED"
	case t.polls <= q:
		return "QUEUED"
	case t.out.Never || t.polls <= q+p:
		return "PROCESSING"
	case t.out.State != "":
		return t.out.State
	}
	return "COMPLETE"
}

func (s *Server) get(path string) (int, any) {
	t, ok := s.tasks[strings.TrimPrefix(path, "/cloud/v2/")]
	if !ok {
		return http.StatusNotFound, errBody("NOT_FOUND", "The task does not exist.")
	}
	t.polls++
	st := t.state()
	res := map[string]any{"path": strings.TrimPrefix(path, "/cloud/v2/"), "state": st, "user": "1", "script": t.script}
	switch st {
	case "COMPLETE":
		results := t.out.Results
		if results == nil {
			results = []any{}
		}
		res["output"] = map[string]any{"results": results}
	case "FAILED":
		res["error"] = map[string]any{"code": t.out.Code, "message": t.out.Message}
		if t.deadline {
			res["error"] = map[string]any{"code": "DEADLINE_EXCEEDED", "message": "The task exceeded its timeout."}
		}
	}
	return http.StatusOK, res
}

// visible is how many log lines a reader sees now.
func (t *task) visible(whileRunning bool) int {
	st := t.state()
	switch {
	case st != "QUEUED" && st != "PROCESSING":
		return len(t.out.Logs)
	case t.timed || t.exec:
		return 0
	case st == "PROCESSING" && whileRunning:
		return min(t.polls-t.out.Queued, len(t.out.Logs))
	}
	return 0
}

func (s *Server) logs(r *http.Request) (int, any) {
	path := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/cloud/v2/"), "/logs")
	t, ok := s.tasks[path]
	if !ok {
		return http.StatusNotFound, errBody("NOT_FOUND", "The task does not exist.")
	}
	if r.URL.Query().Get("view") != "STRUCTURED" {
		return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "this stand-in serves view=STRUCTURED only")
	}
	if st := t.state(); s.RunningLogsStatus != 0 && (st == "QUEUED" || st == "PROCESSING") {
		return s.RunningLogsStatus, errBody("FAILED_PRECONDITION", "the task has not finished")
	}
	start := 0
	if tok := r.URL.Query().Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "p"))
		if err != nil || n < 0 {
			return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "bad pageToken")
		}
		start = n
	}
	size := max(s.PageSize, 1)
	n := t.visible(s.LogsWhileRunning)
	end := min(start+size, n)
	var msgs []map[string]any
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := start; i < end; i++ {
		typ, text, ok := strings.Cut(t.out.Logs[i], ": ")
		switch typ {
		case "OUTPUT", "INFO", "WARNING", "ERROR":
		default:
			ok = false
		}
		if !ok {
			typ, text = "OUTPUT", t.out.Logs[i]
		}
		msgs = append(msgs, map[string]any{"message": text, "messageType": typ, "createTime": base.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)})
	}
	if msgs == nil {
		msgs = []map[string]any{}
	}
	next := ""
	if end < n { // more lines are readable now
		next = "p" + strconv.Itoa(end)
	}
	return http.StatusOK, map[string]any{
		"luauExecutionSessionTaskLogs": []any{map[string]any{"path": path + "/logs/1", "messages": texts(msgs), "structuredMessages": msgs}},
		"nextPageToken":                next,
	}
}

func texts(msgs []map[string]any) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, m["message"].(string))
	}
	return out
}

func (s *Server) upload(r *http.Request, body []byte) (int, any) {
	var u, p int64
	if _, err := fmt.Sscanf(r.URL.Path, "/universes/v1/%d/places/%d/versions", &u, &p); err != nil || u != s.Universe {
		return http.StatusNotFound, errBody("NOT_FOUND", "The place does not exist.")
	}
	if _, ok := s.latest(p); !ok {
		return http.StatusNotFound, errBody("NOT_FOUND", "The place does not exist.")
	}
	vt := r.URL.Query().Get("versionType")
	if vt != "Saved" && vt != "Published" {
		return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "versionType must be Saved or Published")
	}
	ct := r.Header.Get("Content-Type")
	if ct != "application/octet-stream" && ct != "application/xml" {
		return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "unsupported content type")
	}
	if len(body) == 0 {
		return http.StatusBadRequest, errBody("INVALID_ARGUMENT", "empty place file")
	}
	if s.Locked {
		return http.StatusConflict, errBody("CONFLICT", "Server is busy")
	}
	s.uploads = append(s.uploads, body)
	if p != s.Place {
		s.OtherPlaces[p]++
		return http.StatusOK, map[string]any{"versionNumber": s.OtherPlaces[p]}
	}
	s.Versions++
	return http.StatusOK, map[string]any{"versionNumber": s.Versions}
}

// latest is a place's latest version, and whether the place exists.
func (s *Server) latest(place int64) (int64, bool) {
	if place == s.Place {
		return s.Versions, true
	}
	v, ok := s.OtherPlaces[place]
	return v, ok
}

// unfinished counts a place's tasks that have not ended.
func (s *Server) unfinished(place int64) int {
	n := 0
	for _, t := range s.tasks {
		if st := t.state(); t.place == place && (st == "QUEUED" || st == "PROCESSING") {
			n++
		}
	}
	return n
}

// Refused counts creates refused with 429 for the per-place limit.
func (s *Server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// retryAfterBody is a 429 answer that carries Retry-After.
type retryAfterBody struct{ seconds string }

func errBody(code, msg string) map[string]any {
	return map[string]any{"code": code, "message": msg}
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, errBody(code, msg))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
