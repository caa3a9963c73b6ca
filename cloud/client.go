package cloud

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"
)

// DefaultBaseURL is Open Cloud's address.
const DefaultBaseURL = "https://apis.roblox.com"

// Client talks to Open Cloud with one API key. The zero values of its
// tuning fields mean the defaults; tests shorten them.
type Client struct {
	// BaseURL is Open Cloud's address (DefaultBaseURL unless overridden).
	BaseURL string
	key     string
	// HTTP sends the requests; nil means a client with no overall timeout
	// (each request gets RequestTimeout).
	HTTP *http.Client
	// Log receives debug lines (method, path, status); never the key.
	Log *slog.Logger
	// RequestTimeout bounds one request, answer included (default 30 s).
	RequestTimeout time.Duration
	// PollMin and PollMax bound the wait between polls (default 0.5 s, 5 s).
	PollMin, PollMax time.Duration
	// Attempts bounds tries of one request on 429, 5xx and network errors
	// (default 6).
	Attempts int
	// BackoffMin and BackoffMax bound retry waits with no Retry-After
	// (default 1 s, 30 s); a Retry-After above MaxRetryAfter gives up.
	BackoffMin, BackoffMax, MaxRetryAfter time.Duration
	// Limiter, when set, is shared by every request of the run (all its
	// concurrent tasks): one 429 or spent quota holds them all back.
	Limiter *Limiter
	// Grace is how long past a task's own timeout Run keeps polling before
	// it gives up (queueing time; default 2 min).
	Grace time.Duration
}

// New returns a client for baseURL ("" for DefaultBaseURL) and key.
func New(baseURL, key string) *Client {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), key: key}
}

// Response size bounds: a task carries results of at most 4 MB; a log page
// is far smaller than the whole log (truncated near 450 KB); other answers
// are tiny.
const (
	maxTaskBytes  = 5 << 20
	maxLogPage    = 2 << 20
	maxSmallBytes = 64 << 10
)

func (c *Client) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.New(slog.DiscardHandler)
}

func dur(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

// request is one call to make.
type request struct {
	op          string
	method      string
	path        string // after BaseURL, with its leading slash and query
	body        []byte
	contentType string
	maxBytes    int64
	ids         string // what the call concerns, for messages
	// create marks a call that must not be sent twice: a network error
	// after the request was written is an unknown outcome.
	create bool
	// tries overrides Client.Attempts (1: no retry).
	tries int
}

// do sends r, retrying refusals that are safe to retry, and returns the 2xx
// body.
func (c *Client) do(ctx context.Context, r request) ([]byte, error) {
	var last *Error
	for attempt := 1; ; attempt++ {
		if err := c.Limiter.Wait(ctx); err != nil {
			return nil, err
		}
		body, status, header, wrote, err := c.once(ctx, r)
		c.Limiter.Observe(status, header)
		if err == nil && status/100 == 2 {
			return body, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var own *Error
		if errors.As(err, &own) {
			return nil, own
		}
		var wait time.Duration
		switch {
		case err != nil && r.create && wrote:
			what := "the task may or may not have been created, so it was not sent again; check the place's running tasks before retrying"
			if r.op == "upload place" {
				what = "a version may or may not have been saved, so it was not sent again"
			}
			return nil, &Error{Kind: KindUnknownOutcome, Op: r.op, Err: err,
				Message: fmt.Sprintf("the request was sent but its answer was lost (%s); %s", c.scrub(err.Error()), what)}
		case err != nil && hostNotFound(err):
			// a name that does not resolve will not resolve in a few
			// seconds either: say so at once instead of retrying for half
			// a minute
			return nil, &Error{Kind: KindUnavailable, Op: r.op, Err: err,
				Message: "could not reach Open Cloud at " + c.BaseURL + ": its host name does not resolve (" + c.scrub(err.Error()) + "); check the address and this machine's network and DNS"}
		case err != nil:
			last = &Error{Kind: KindUnavailable, Op: r.op, Err: err, Message: "could not reach Open Cloud at " + c.BaseURL + ": " + c.scrub(err.Error())}
			wait = c.backoff(attempt)
		case status == http.StatusTooManyRequests:
			last = statusError(r.op, status, c.scrub(apiMessage(body)), r.ids)
			var ok bool
			if wait, ok = retryAfter(header); !ok {
				wait = c.backoff(attempt)
			} else if wait > dur(c.MaxRetryAfter, 5*time.Minute) {
				last.Message += fmt.Sprintf(" (Open Cloud asked to wait %s)", wait)
				return nil, last
			}
		case status >= 500:
			last = statusError(r.op, status, c.scrub(apiMessage(body)), r.ids)
			wait = c.backoff(attempt)
		default:
			return nil, statusError(r.op, status, c.scrub(apiMessage(body)), r.ids)
		}
		if attempt >= c.attempts() || (r.tries > 0 && attempt >= r.tries) {
			last.Message += fmt.Sprintf(" (gave up after %d attempts)", attempt)
			return nil, last
		}
		c.log().Debug("open cloud: retrying", "op", r.op, "attempt", attempt, "wait", wait, "reason", last.Message)
		if err := Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// once sends r one time. wrote reports whether the whole request reached
// the connection (after which a lost answer leaves the outcome unknown).
func (c *Client) once(ctx context.Context, r request) (body []byte, status int, header http.Header, wrote bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, dur(c.RequestTimeout, 30*time.Second))
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote = wrote || i.Err == nil },
	})
	var rd io.Reader
	if r.body != nil {
		rd = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.BaseURL+r.path, rd)
	if err != nil {
		return nil, 0, nil, false, err
	}
	req.Header.Set("x-api-key", c.key)
	req.Header.Set("Accept", "application/json")
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		c.log().Debug("open cloud: request failed", "op", r.op, "method", r.method, "path", pathOnly(r.path), "err", c.scrub(err.Error()))
		return nil, 0, nil, wrote, err
	}
	defer func() { _ = resp.Body.Close() }() // the body is read in full or bounded; Close says nothing more
	limit := r.maxBytes
	if resp.StatusCode/100 != 2 {
		limit = maxSmallBytes
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	c.log().Debug("open cloud", "op", r.op, "method", r.method, "path", pathOnly(r.path), "status", resp.StatusCode, "bytes", len(body), "elapsed", time.Since(start).Round(time.Millisecond),
		"ratelimit_remaining", resp.Header.Get("x-ratelimit-remaining"))
	if err != nil {
		return nil, 0, nil, true, err
	}
	if int64(len(body)) > limit {
		if resp.StatusCode/100 == 2 {
			return nil, resp.StatusCode, resp.Header, true, &Error{Kind: KindUnavailable, Op: r.op, Message: fmt.Sprintf("the answer is larger than %d MiB; refusing to read it", limit>>20)}
		}
		body = body[:limit]
	}
	return body, resp.StatusCode, resp.Header, true, nil
}

// scrub removes the API key from text that may echo a request.
func (c *Client) scrub(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[API key]")
}

func pathOnly(p string) string {
	path, _, _ := strings.Cut(p, "?")
	return path
}
