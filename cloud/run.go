package cloud

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Run creates the task, polls it until it ends and returns its outcome.
// onLog (may be nil) receives every log line once, in order: while the task
// runs when the API serves its logs then, else when it has ended.
//
// A task that ended, in any state, is an *Outcome and a nil error (see
// Outcome.Failure). Errors are calls that failed, a task that did not end
// within its timeout plus Grace (KindTimeout), and a context that ended
// first (KindInterrupted, wrapping ctx.Err(); the task runs on, as the API
// has no cancel call). Both carry the task's path.
func (c *Client) Run(ctx context.Context, t Task, onLog func(Line)) (*Outcome, error) {
	if t.UniverseID <= 0 || t.PlaceID <= 0 {
		return nil, errors.New("cloud: a task needs a universe ID and a place ID")
	}
	if len(t.Script) > MaxScriptBytes {
		return nil, fmt.Errorf("cloud: the script is %d bytes; Open Cloud takes at most %d", len(t.Script), MaxScriptBytes)
	}
	res, err := c.create(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Kind: KindInterrupted, Err: ctx.Err(), Message: "interrupted while creating the task; it may or may not have been created"}
		}
		return nil, err
	}
	path := res.Path
	c.log().Info("open cloud: task created", "task", path)
	cur := &logCursor{c: c, path: path, onLog: onLog}
	limit := t.Timeout
	if limit <= 0 || limit > MaxTimeout {
		limit = MaxTimeout
	}
	deadline := time.Now().Add(limit + dur(c.Grace, 2*time.Minute))
	wait := dur(c.PollMin, 500*time.Millisecond)
	for !res.State.Done() {
		if time.Now().After(deadline) {
			return nil, &Error{Kind: KindTimeout, Op: "get task", TaskPath: path,
				Message: fmt.Sprintf("the task did not finish within its %s timeout and %s more of waiting (still %s); it may still be running", limit, dur(c.Grace, 2*time.Minute), res.State)}
		}
		if err := Sleep(ctx, wait); err != nil {
			return nil, interrupted(path, err)
		}
		wait = min(wait*3/2, dur(c.PollMax, 5*time.Second))
		if res, err = c.get(ctx, path); err != nil {
			if ctx.Err() != nil {
				return nil, interrupted(path, ctx.Err())
			}
			return nil, withPath(err, path)
		}
		if res.State == StateProcessing { // the final reading follows the loop
			if err := cur.read(ctx, false); err != nil && ctx.Err() != nil {
				return nil, interrupted(path, ctx.Err())
			}
		}
	}
	out := &Outcome{TaskPath: path, State: res.State, Error: res.Error}
	if res.Output != nil {
		out.Results = res.Output.Results
	}
	if res.State == StateCancelled && out.Error == nil {
		out.Error = &TaskError{Code: "CANCELLED", Message: "the task was cancelled"}
	}
	if err := cur.read(ctx, true); err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(path, ctx.Err())
		}
		out.LogsErr = withPath(err, path)
	}
	out.Lines = cur.emitted
	return out, nil
}

// Failure classifies a finished task: nil for COMPLETE and for a script
// error (a result, not a failure), a KindTimeout *Error for
// DEADLINE_EXCEEDED, a KindTaskFailed *Error otherwise.
func (o *Outcome) Failure() error {
	if o.State == StateComplete || (o.Error != nil && o.Error.Code == CodeScriptError) {
		return nil
	}
	e := &Error{Kind: KindTaskFailed, TaskPath: o.TaskPath}
	code, msg := "", ""
	if o.Error != nil {
		code, msg = o.Error.Code, o.Error.Message
	}
	switch code {
	case CodeDeadlineExceeded:
		e.Kind = KindTimeout
		e.Message = "the task ran past its timeout (DEADLINE_EXCEEDED)"
	case CodeOutputSizeExceeded:
		e.Message = "the task's return values exceed Open Cloud's 4 MB limit (OUTPUT_SIZE_LIMIT_EXCEEDED)"
	case CodeInternalError:
		e.Message = "Open Cloud failed to run the task (INTERNAL_ERROR); try again"
	case "CANCELLED":
		e.Message = "the task was cancelled"
	default:
		e.Message = fmt.Sprintf("the task ended %s (%s)", o.State, code)
	}
	if msg != "" {
		e.Message += ": " + msg
	}
	return e
}

func interrupted(path string, cause error) error {
	return &Error{Kind: KindInterrupted, TaskPath: path, Err: cause,
		Message: "interrupted; the task runs on until it ends or reaches its timeout (Open Cloud has no cancel call): " + path}
}

func withPath(err error, path string) error {
	var e *Error
	if errors.As(err, &e) && e.TaskPath == "" {
		e.TaskPath = path
	}
	return err
}

// logCursor reads a task's log pages, remembering how far it got, so a line
// is never passed on twice however often the pages are read.
type logCursor struct {
	c       *Client
	path    string
	onLog   func(Line)
	token   string // the page being read
	seen    int    // lines of that page already passed on
	emitted int
	bytes   int // message bytes passed on, bounded by maxLogBytes
}

// maxLogBytes bounds the log text one task passes on; the API truncates a
// task's logs near 450 KB, so only a broken answer comes near it.
const maxLogBytes = 64 << 20

// read passes on the lines not seen yet. While the task runs (final
// false), a failure only stops this reading: the API does not document
// logs of a running task, and the final reading gets them all.
func (l *logCursor) read(ctx context.Context, final bool) error {
	for range maxLogPages {
		tries := 1
		if final {
			tries = 0
		}
		lines, next, err := l.c.logs(ctx, l.path, l.token, tries)
		if err != nil {
			if !final {
				l.c.log().Debug("open cloud: logs not readable while the task runs", "err", err)
			}
			return err
		}
		for _, line := range lines[min(l.seen, len(lines)):] {
			if l.bytes += len(line.Message); l.bytes > maxLogBytes {
				return &Error{Kind: KindUnavailable, Op: "list logs", TaskPath: l.path, Message: fmt.Sprintf("the task's logs exceed %d MiB; the rest were not read", maxLogBytes>>20)}
			}
			l.emitted++
			if l.onLog != nil {
				l.onLog(line)
			}
		}
		l.seen = max(l.seen, len(lines))
		if next == "" || next == l.token {
			return nil
		}
		l.token, l.seen = next, 0
	}
	return nil
}
