package commands

import (
	"slices"
	"sync"
	"testing"
	"time"
)

func TestStatusAfter(t *testing.T) {
	var mu sync.Mutex
	var shown []string
	env := &Env{Status: func(s string) { mu.Lock(); shown = append(shown, s); mu.Unlock() }}
	got := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(shown) }

	done := env.StatusAfter("quick")
	done()
	time.Sleep(SlowStatus + 100*time.Millisecond)
	if s := got(); len(s) != 0 {
		t.Fatalf("a quick wait showed %q", s)
	}

	done = env.StatusAfter("slow")
	time.Sleep(SlowStatus + 100*time.Millisecond)
	done()
	if s := got(); !slices.Equal(s, []string{"slow", ""}) {
		t.Fatalf("a slow wait showed %q; want the status, then cleared", s)
	}

	(&Env{}).StatusAfter("no status line")() // no Status: nothing to do, no panic
}
