package cloud

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limiter is one rate limiter shared by every request of a run (all its
// concurrent tasks): when any answer says the quota is spent — a 429 with
// Retry-After or x-ratelimit-reset, or x-ratelimit-remaining 0 — every
// caller waits until the quota resets, instead of each task learning it
// with a 429 of its own. Open Cloud's API-key limits apply per key owner
// (docs/open-cloud.md), so one limiter per process is the right scope.
type Limiter struct {
	mu    sync.Mutex
	until time.Time
	now   func() time.Time // tests
	// waits counts the times Wait had to wait, for tests and debug lines.
	waits int
}

// NewLimiter returns a limiter that lets everything through until an
// answer says otherwise.
func NewLimiter() *Limiter { return &Limiter{now: time.Now} }

// maxLimiterWait bounds one pause the limiter imposes from a header: a
// broken or hostile header cannot stall a run for hours (Client.do gives
// up on a longer Retry-After anyway).
const maxLimiterWait = 5 * time.Minute

// Wait blocks until the quota is expected to have reset, or ctx ends.
func (l *Limiter) Wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	d := l.until.Sub(l.now())
	if d > 0 {
		l.waits++
	}
	l.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return Sleep(ctx, d)
}

// Observe reads an answer's status and rate-limit headers: a 429 (with
// Retry-After, else x-ratelimit-reset) or x-ratelimit-remaining of 0 (with
// x-ratelimit-reset) holds every caller back until then.
func (l *Limiter) Observe(status int, h http.Header) {
	if l == nil || h == nil {
		return
	}
	var d time.Duration
	var ok bool
	switch {
	case status == http.StatusTooManyRequests:
		d, ok = retryAfter(h)
	case remainingZero(h):
		d, ok = resetAfter(h)
	}
	if !ok || d <= 0 {
		return
	}
	d = min(d, maxLimiterWait)
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.now().Add(d); t.After(l.until) {
		l.until = t
	}
}

// Waits reports how often Wait had to wait.
func (l *Limiter) Waits() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waits
}

// remainingZero reports x-ratelimit-remaining 0 (its first value, when
// the API lists one per window).
func remainingZero(h http.Header) bool {
	v := strings.TrimSpace(h.Get("x-ratelimit-remaining"))
	if v == "" {
		return false
	}
	v, _, _ = strings.Cut(v, ",")
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return err == nil && n <= 0
}

// resetAfter reads x-ratelimit-reset (seconds until the quota resets).
func resetAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("x-ratelimit-reset"))
	if v == "" {
		return 0, false
	}
	v, _, _ = strings.Cut(v, ",")
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n * float64(time.Second)), true
}
