package cloud

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// When and how long Client.do waits before trying a refused or failed
// request again.

// attempts is how often a request is tried: Client.Attempts, or 6.
func (c *Client) attempts() int {
	if c.Attempts > 0 {
		return c.Attempts
	}
	return 6
}

// backoff is exponential from BackoffMin, capped at BackoffMax, with full
// jitter over its upper half.
func (c *Client) backoff(attempt int) time.Duration {
	lo, hi := dur(c.BackoffMin, time.Second), dur(c.BackoffMax, 30*time.Second)
	d := lo << min(attempt-1, 16)
	if d > hi || d <= 0 {
		d = hi
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads Retry-After (seconds or an HTTP date) or, failing that,
// x-ratelimit-reset (seconds until the quota resets).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
			return time.Duration(n * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), 0), true
		}
	}
	if v := strings.TrimSpace(h.Get("x-ratelimit-reset")); v != "" {
		v, _, _ = strings.Cut(v, ",")
		if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && n >= 0 {
			return time.Duration(n * float64(time.Second)), true
		}
	}
	return 0, false
}

// Sleep waits d, or until ctx ends (its error then).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// hostNotFound reports a DNS answer that the name does not exist ("no such
// host"): permanent, unlike a resolver that timed out or failed for now.
func hostNotFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound && !de.IsTemporary && !de.IsTimeout
}
