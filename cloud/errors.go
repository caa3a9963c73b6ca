package cloud

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Kind says what went wrong, so callers choose an exit code or a retry.
type Kind int

// Kinds of failure.
const (
	// KindAuth: 401 or 403; the key is wrong or lacks a permission.
	KindAuth Kind = iota + 1
	// KindNotFound: 404; the universe, place or version does not exist (or
	// the key cannot see it).
	KindNotFound
	// KindLocked: 409 on a place upload; the place is locked.
	KindLocked
	// KindRateLimited: still 429 after every attempt.
	KindRateLimited
	// KindUnavailable: the API could not be reached or kept failing (5xx,
	// network errors), or answered something unreadable.
	KindUnavailable
	// KindUnknownOutcome: a create was sent but its answer was lost; the
	// task may or may not exist.
	KindUnknownOutcome
	// KindRejected: another 4xx (a bad request).
	KindRejected
	// KindTimeout: the task did not finish in time (DEADLINE_EXCEEDED, or
	// it never finished while we waited).
	KindTimeout
	// KindInterrupted: the caller's context ended while the task ran; it
	// runs on (the API has no cancel).
	KindInterrupted
	// KindTaskFailed: the task ended FAILED with a code other than
	// SCRIPT_ERROR and DEADLINE_EXCEEDED, or CANCELLED.
	KindTaskFailed
)

// Error is a failed Open Cloud call or task. Its text never contains the
// API key.
type Error struct {
	Kind Kind
	// Op names the call: "create task", "get task", "list logs", "upload place".
	Op string
	// Status is the HTTP status, when there was an answer.
	Status int
	// Message is the explanation for people.
	Message string
	// TaskPath is the task concerned, when one exists.
	TaskPath string
	// Err is the underlying cause (context.Canceled for KindInterrupted).
	Err error
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Op != "" {
		msg = "Open Cloud " + e.Op + ": " + msg
	}
	if e.TaskPath != "" && e.Kind != KindInterrupted {
		msg += " (task " + e.TaskPath + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns err's Kind, or 0 when err is no *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// Permissions the API key needs, as the Creator Dashboard names them.
const (
	// PermExecWrite creates tasks.
	PermExecWrite = "universe.place.luau-execution-session:write"
	// PermExecRead reads tasks and their logs.
	PermExecRead = "universe.place.luau-execution-session:read"
	// PermPlacesWrite uploads place versions.
	PermPlacesWrite = "universe-places:write"
)

// statusError turns a refusal into an *Error that says what to do.
func statusError(op string, status int, detail, ids string) *Error {
	e := &Error{Op: op, Status: status}
	switch {
	case status == 401 || status == 403:
		e.Kind = KindAuth
		perms := PermExecWrite + " and " + PermExecRead
		if op == "upload place" {
			perms = PermPlacesWrite
		}
		verb := "was refused"
		if status == 401 {
			verb = "was not accepted"
		}
		e.Message = fmt.Sprintf("the API key in ROBLOX_API_KEY %s (HTTP %d); it needs the %s permissions for %s, and its IP allow-list must admit this machine", verb, status, perms, ids)
	case status == 404:
		e.Kind = KindNotFound
		e.Message = fmt.Sprintf("%s was not found (HTTP 404); check the IDs, and that the API key has access to that experience", ids)
	case status == 409 && op == "upload place":
		e.Kind = KindLocked
		e.Message = fmt.Sprintf("%s is locked (HTTP 409): someone is editing it in Team Create or another upload is in progress; try again later", ids)
	case status == 429:
		e.Kind = KindRateLimited
		e.Message = "still rate limited (HTTP 429) after every attempt; wait and try again (task creation is limited per API key owner, and a place runs at most 10 unfinished tasks)"
	case status >= 500:
		e.Kind = KindUnavailable
		e.Message = fmt.Sprintf("Open Cloud kept failing (HTTP %d)", status)
	default:
		e.Kind = KindRejected
		e.Message = fmt.Sprintf("refused (HTTP %d)", status)
	}
	if detail != "" {
		e.Message += ": " + detail
	}
	return e
}

// apiMessage extracts the explanation from an error answer, bounded.
func apiMessage(body []byte) string {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Errors  []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil {
		switch {
		case e.Message != "":
			msg = e.Message
			if e.Code != "" {
				msg = e.Code + ": " + msg
			}
		case len(e.Errors) > 0:
			msg = e.Errors[0].Message
		}
	} else {
		msg = strings.TrimSpace(string(body))
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// errNoPath is a create answer without the task it created.
var errNoPath = errors.New("the create answer has no task path")
