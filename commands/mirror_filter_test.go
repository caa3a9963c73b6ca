package commands

import (
	"strings"
	"testing"
	"time"
)

func bodies(ls []Line) string {
	var b []string
	for _, l := range ls {
		b = append(b, l.Body)
	}
	return strings.Join(b, ",")
}

func TestDropMirroredRule(t *testing.T) {
	p := func(body string, ts float64) Line { return Line{Level: "Print", Body: body, Timestamp: ts} }
	for _, c := range []struct {
		name           string
		client, server []Line
		want           string
	}{
		{"no server", []Line{p("a", 1)}, nil, "a"},
		{"a copy within the skew", []Line{p("a", 1000), p("b", 1000)}, []Line{p("a", 2500)}, "b"},
		{"too far apart", []Line{p("a", 1000)}, []Line{p("a", 3001)}, "a"},
		{"unstamped matches", []Line{p("a", 0)}, []Line{p("a", 9000)}, ""},
		{"level differs", []Line{{Level: "Warning", Body: "a", Timestamp: 1}}, []Line{p("a", 1)}, "a"},
		{"one server line explains one copy", []Line{p("a", 1), p("a", 2), p("a", 3)}, []Line{p("a", 1), p("a", 2)}, "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := bodies(dropMirrored(c.client, c.server)); got != c.want {
				t.Errorf("dropMirrored = %q, want %q", got, c.want)
			}
		})
	}
}

func TestMirrorFilterBounded(t *testing.T) {
	f := newMirrorFilter(10 * entryBytes(mirrorKey{"Print", "x"}))
	for i := range 1000 {
		f.server(Line{Level: "Print", Body: "x", Timestamp: float64(i)})
	}
	if len(f.queue) > 10 || f.bytes > f.budget {
		t.Fatalf("the filter holds %d lines, %d bytes; want at most 10 lines in %d bytes", len(f.queue), f.bytes, f.budget)
	}
	if n := len(f.byKey[mirrorKey{"Print", "x"}]); n != len(f.queue) {
		t.Fatalf("%d lines by key, %d queued", n, len(f.queue))
	}
	f.forget(999 + MirrorSkew + 1)
	if len(f.queue) != 0 || len(f.byKey) != 0 || f.bytes != 0 {
		t.Fatalf("after forget: %d queued, %d keys, %d bytes; want none", len(f.queue), len(f.byKey), f.bytes)
	}
	// a used line is forgotten without disturbing the others
	f.server(Line{Body: "y", Timestamp: 5000})
	f.server(Line{Body: "y", Timestamp: 5001})
	if !f.take(Line{Body: "y", Timestamp: 5000}) {
		t.Fatal("take missed its server line")
	}
	f.dropOldest()
	if !f.take(Line{Body: "y", Timestamp: 5001}) || f.take(Line{Body: "y", Timestamp: 5001}) {
		t.Fatal("the second server line should explain exactly one copy")
	}
}

func TestMirrorJudge(t *testing.T) {
	p := func(body string, ts float64) Line { return Line{Level: "Print", Body: body, Timestamp: ts} }
	t0 := time.Unix(1000, 0)
	type step struct {
		server bool
		line   Line
		at     time.Duration
	}
	for _, c := range []struct {
		name  string
		steps []step
		want  string // shown before flush
	}{
		{"the server's original first", []step{{true, p("m", 100), 0}, {false, p("m", 120), 0}, {false, p("own", 130), 0}, {true, p("later", 140), 0}}, "own"},
		{"the copy first: held, then dropped", []step{{false, p("m", 120), 0}, {true, p("m", 100), 0}, {true, p("later", 200), 0}}, ""},
		{"held until the server passes it", []step{{false, p("own", 120), 0}, {true, p("other", 119), 0}}, ""},
		{"released when the server passes it", []step{{false, p("own", 120), 0}, {true, p("other", 121), 0}}, "own"},
		{"released when the wait ends", []step{{false, p("own", 120), 0}, {false, p("own2", 130), 2001 * time.Millisecond}}, "own"},
		{"order kept", []step{{false, p("a", 1), 0}, {false, p("b", 2), 0}, {true, p("x", 5), 0}}, "a,b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var shown []Line
			j := newMirrorJudge(func(l Line) { shown = append(shown, l) })
			for _, s := range c.steps {
				if s.server {
					j.server(s.line, t0.Add(s.at))
				} else {
					j.client(s.line, t0.Add(s.at))
				}
			}
			if got := bodies(shown); got != c.want {
				t.Errorf("shown %q, want %q", got, c.want)
			}
		})
	}
}

func TestMirrorJudgeBounded(t *testing.T) {
	var shown int
	j := newMirrorJudge(func(Line) { shown++ })
	big := strings.Repeat("x", 64<<10)
	now := time.Unix(1000, 0)
	for i := range 100 {
		j.client(Line{Body: big, Timestamp: float64(i + 1)}, now)
	}
	if j.heldBytes > mirrorHoldBudget {
		t.Fatalf("holding %d bytes, budget %d", j.heldBytes, mirrorHoldBudget)
	}
	if shown+len(j.held) != 100 {
		t.Fatalf("%d shown + %d held, want 100", shown, len(j.held))
	}
	j.flush()
	if shown != 100 {
		t.Fatalf("after flush %d shown, want 100", shown)
	}
}
