package kit

import (
	"testing"
	"time"
)

// Recv waits up to d for a value from ch and returns it; when none comes it
// fails tb, naming what it waited for.
func Recv[T any](tb testing.TB, ch <-chan T, d time.Duration, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
	}
	tb.Fatalf("timed out after %s waiting for %s", d, what)
	var zero T
	return zero
}
