package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Task is what to run.
type Task struct {
	// Script is the Luau source (at most MaxScriptBytes).
	Script string
	// UniverseID and PlaceID name the place; both are required.
	UniverseID, PlaceID int64
	// Version runs a given place version; 0 runs the latest.
	Version int64
	// Timeout is the task's own limit, sent with it (whole seconds, capped
	// at MaxTimeout; 0 leaves the API's default of MaxTimeout).
	Timeout time.Duration
}

// API limits from the reference.
const (
	// MaxScriptBytes bounds a task's script.
	MaxScriptBytes = 4 << 20
	// MaxTimeout is the longest a task may run.
	MaxTimeout = 5 * time.Minute
)

// State is a task's state.
type State string

// Task states: QUEUED and PROCESSING before it ends; COMPLETE, FAILED or
// CANCELLED when it has.
const (
	StateQueued     State = "QUEUED"
	StateProcessing State = "PROCESSING"
	StateComplete   State = "COMPLETE"
	StateFailed     State = "FAILED"
	StateCancelled  State = "CANCELLED"
)

// Done reports whether s is a final state.
func (s State) Done() bool {
	return s == StateComplete || s == StateFailed || s == StateCancelled
}

// Error codes of a FAILED task.
const (
	CodeScriptError        = "SCRIPT_ERROR"
	CodeDeadlineExceeded   = "DEADLINE_EXCEEDED"
	CodeOutputSizeExceeded = "OUTPUT_SIZE_LIMIT_EXCEEDED"
	CodeInternalError      = "INTERNAL_ERROR"
)

// taskResource is the API's LuauExecutionSessionTask.
type taskResource struct {
	Path   string `json:"path"`
	State  State  `json:"state"`
	Output *struct {
		Results []json.RawMessage `json:"results"`
	} `json:"output"`
	Error *TaskError `json:"error"`
}

// TaskError is a FAILED task's error.
type TaskError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Line is one structured log message.
type Line struct {
	// Type is OUTPUT, INFO, WARNING or ERROR.
	Type       string    `json:"messageType"`
	Message    string    `json:"message"`
	CreateTime time.Time `json:"createTime"`
}

// Outcome is a finished task.
type Outcome struct {
	// TaskPath is the task's path, as the create answered it.
	TaskPath string
	State    State
	// Results are the script's return values (COMPLETE).
	Results []json.RawMessage
	// Error is set for FAILED (and CANCELLED, with code CANCELLED).
	Error *TaskError
	// Lines counts the log lines passed to onLog.
	Lines int
	// LogsErr is set when the task ended but its logs could not be read.
	LogsErr error
}

func (t Task) ids() string {
	s := fmt.Sprintf("universe %d, place %d", t.UniverseID, t.PlaceID)
	if t.Version > 0 {
		s += fmt.Sprintf(", version %d", t.Version)
	}
	return s
}

// create starts the task; it is never sent twice.
func (c *Client) create(ctx context.Context, t Task) (*taskResource, error) {
	path := fmt.Sprintf("/cloud/v2/universes/%d/places/%d/", t.UniverseID, t.PlaceID)
	if t.Version > 0 {
		path += fmt.Sprintf("versions/%d/", t.Version)
	}
	path += "luau-execution-session-tasks"
	body := map[string]string{"script": t.Script}
	if t.Timeout > 0 {
		secs := min(max(int64(t.Timeout/time.Second), 1), int64(MaxTimeout/time.Second))
		body["timeout"] = strconv.FormatInt(secs, 10) + "s"
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	out, err := c.do(ctx, request{op: "create task", method: "POST", path: path, body: raw, contentType: "application/json", maxBytes: maxTaskBytes, ids: t.ids(), create: true})
	if err != nil {
		return nil, err
	}
	var res taskResource
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, &Error{Kind: KindUnknownOutcome, Op: "create task", Err: err, Message: "the answer is not a task (" + err.Error() + "); the task may or may not have been created"}
	}
	if res.Path == "" {
		return nil, &Error{Kind: KindUnknownOutcome, Op: "create task", Err: errNoPath, Message: "the answer has no task path; the task may or may not have been created"}
	}
	if err := checkPath(res.Path); err != nil {
		return nil, err
	}
	return &res, nil
}

// checkPath refuses a task path that would leave /cloud/v2/ (a hostile or
// broken answer).
func checkPath(p string) error {
	if strings.HasPrefix(p, "/") || strings.Contains(p, "..") || strings.ContainsAny(p, "?#\\ ") || !strings.HasPrefix(p, "universes/") {
		return &Error{Kind: KindUnavailable, Op: "create task", Message: fmt.Sprintf("the answer's task path %q is not a task path", p)}
	}
	return nil
}

// get reads the task at exactly path.
func (c *Client) get(ctx context.Context, path string) (*taskResource, error) {
	out, err := c.do(ctx, request{op: "get task", method: "GET", path: "/cloud/v2/" + path, maxBytes: maxTaskBytes, ids: "task " + path})
	if err != nil {
		return nil, err
	}
	var res taskResource
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, &Error{Kind: KindUnavailable, Op: "get task", Err: err, TaskPath: path, Message: "the answer is not a task: " + err.Error()}
	}
	return &res, nil
}

// logPage is one page of a task's logs.
type logPage struct {
	Logs []struct {
		Structured []Line `json:"structuredMessages"`
	} `json:"luauExecutionSessionTaskLogs"`
	Next string `json:"nextPageToken"`
}

// maxLogPages bounds one reading of a task's logs (the API truncates logs
// near 450 KB, far fewer pages than this).
const maxLogPages = 1000

// logs reads one page of the task's structured logs; tries 1 makes one
// attempt (a reading while the task runs, which the next poll repeats).
func (c *Client) logs(ctx context.Context, path, token string, tries int) ([]Line, string, error) {
	q := url.Values{"view": {"STRUCTURED"}}
	if token != "" {
		q.Set("pageToken", token)
	}
	out, err := c.do(ctx, request{op: "list logs", method: "GET", path: "/cloud/v2/" + path + "/logs?" + q.Encode(), maxBytes: maxLogPage, ids: "task " + path, tries: tries})
	if err != nil {
		return nil, "", err
	}
	var page logPage
	if err := json.Unmarshal(out, &page); err != nil {
		return nil, "", &Error{Kind: KindUnavailable, Op: "list logs", Err: err, TaskPath: path, Message: "the answer is not a log page: " + err.Error()}
	}
	var lines []Line
	for _, l := range page.Logs {
		lines = append(lines, l.Structured...)
	}
	return lines, page.Next, nil
}
