package benchutil

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	var hundred []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		hundred = append(hundred, time.Duration(i))
	}
	cases := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single p50", []time.Duration{7}, 50, 7},
		{"single p99", []time.Duration{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50},
		{"p99 of 1..100", hundred, 99, 99},
		{"p100 of 1..100", hundred, 100, 100},
		{"p1 of 1..100", hundred, 1, 1},
		{"p0 clamps to min", hundred, 0, 1},
		{"p50 of 4", []time.Duration{4, 1, 3, 2}, 50, 2},
		{"p99 of 4 is the max", []time.Duration{4, 1, 3, 2}, 99, 4},
		{"p50 of 3", []time.Duration{30, 10, 20}, 50, 20},
	}
	for _, c := range cases {
		if got := Percentile(c.in, c.p); got != c.want {
			t.Errorf("%s: Percentile(%v) = %v, want %v", c.name, c.p, got, c.want)
		}
	}
	if hundred[0] != 100 {
		t.Fatal("Percentile sorted its input in place")
	}
}

func TestSamples(t *testing.T) {
	s := NewSamples(3)
	for _, d := range []time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond} {
		s.Add(d)
	}
	if s.Len() != 3 || s.Percentile(50) != 2*time.Millisecond || s.Max() != 3*time.Millisecond {
		t.Fatalf("len %d p50 %v max %v", s.Len(), s.Percentile(50), s.Max())
	}
}
