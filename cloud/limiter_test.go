package cloud

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The limiter holds callers back exactly when an answer says the quota is
// spent, for as long as it says (bounded), and never moves a pause earlier.
func TestLimiterObserve(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		status int
		header map[string]string
		want   time.Duration
	}{
		{name: "ok answer", status: 200, header: map[string]string{"x-ratelimit-remaining": "5", "x-ratelimit-reset": "20"}},
		{name: "quota spent", status: 200, header: map[string]string{"x-ratelimit-remaining": "0, 10;w=60", "x-ratelimit-reset": "7, 30"}, want: 7 * time.Second},
		{name: "429 retry-after", status: 429, header: map[string]string{"Retry-After": "3", "x-ratelimit-reset": "20"}, want: 3 * time.Second},
		{name: "429 reset only", status: 429, header: map[string]string{"x-ratelimit-reset": "4"}, want: 4 * time.Second},
		{name: "429 no header", status: 429, header: map[string]string{}},
		{name: "hostile header bounded", status: 429, header: map[string]string{"Retry-After": "99999"}, want: maxLimiterWait},
		{name: "5xx ignored", status: 503, header: map[string]string{"Retry-After": "9"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLimiter()
			l.now = func() time.Time { return base }
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			l.Observe(tc.status, h)
			got := max(l.until.Sub(base), 0)
			if got != tc.want {
				t.Fatalf("holds back %s, want %s", got, tc.want)
			}
			l.Observe(200, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1"}})
			if after := max(l.until.Sub(base), 0); after < got {
				t.Fatalf("a shorter pause moved the wait earlier: %s < %s", after, got)
			}
		})
	}
}

// A waiting caller returns when its context ends; a nil limiter never waits.
func TestLimiterWaitCancelled(t *testing.T) {
	var none *Limiter
	if err := none.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := NewLimiter()
	l.Observe(429, http.Header{"Retry-After": {"60"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Wait(ctx); err == nil {
		t.Fatal("a cancelled wait returned no error")
	}
	if l.Waits() != 1 {
		t.Fatalf("waits %d", l.Waits())
	}
}

// The upload cache hits only for the same bytes on the same place, and a
// broken cache file is an empty cache, not an error.
func TestUploadCache(t *testing.T) {
	dir := t.TempDir()
	c := NewUploadCache(filepath.Join(dir, ".studio-bridge", "upload-cache.json"))
	if _, ok := c.Lookup(1, 2, "abc"); ok {
		t.Fatal("an empty cache hit")
	}
	if err := c.Store(1, 2, "abc", 9); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		universe, place int64
		digest          string
		hit             bool
	}{
		{1, 2, "abc", true},
		{1, 2, "abd", false},
		{1, 3, "abc", false},
		{5, 2, "abc", false},
	}
	for _, tc := range cases {
		v, ok := c.Lookup(tc.universe, tc.place, tc.digest)
		if ok != tc.hit || (ok && v != 9) {
			t.Fatalf("%+v: %d %v", tc, v, ok)
		}
	}
	if err := os.WriteFile(c.path, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup(1, 2, "abc"); ok {
		t.Fatal("a broken cache hit")
	}
	if err := c.Store(1, 2, "abc", 10); err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Lookup(1, 2, "abc"); !ok || v != 10 {
		t.Fatalf("after a broken file: %d %v", v, ok)
	}
}
