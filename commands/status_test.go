package commands

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestStatusAfter(t *testing.T) {
	t.Parallel()
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
	kit.WaitFor(t, 10*time.Second, "the slow wait's status", func() bool { return len(got()) > 0 })
	done()
	if s := got(); !slices.Equal(s, []string{"slow", ""}) {
		t.Fatalf("a slow wait showed %q; want the status, then cleared", s)
	}

	(&Env{}).StatusAfter("no status line")() // no Status: nothing to do, no panic
}
