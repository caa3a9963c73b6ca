package benchutil

import (
	"math"
	"slices"
	"testing"
	"time"
)

// Samples collects latencies.
type Samples struct {
	d []time.Duration
}

// NewSamples returns an empty collection with room for n samples.
func NewSamples(n int) *Samples { return &Samples{d: make([]time.Duration, 0, n)} }

// Add records one sample.
func (s *Samples) Add(d time.Duration) { s.d = append(s.d, d) }

// Durations returns the samples in the order they were added.
func (s *Samples) Durations() []time.Duration { return s.d }

// Len is the number of samples.
func (s *Samples) Len() int { return len(s.d) }

// Percentile returns the nearest-rank p-th percentile (0 < p ≤ 100): the
// smallest sample that at least p % of the samples do not exceed. It returns
// 0 when there are no samples.
func (s *Samples) Percentile(p float64) time.Duration {
	return Percentile(s.d, p)
}

// Max returns the largest sample (0 when there are none).
func (s *Samples) Max() time.Duration { return Percentile(s.d, 100) }

// Percentile is Samples.Percentile over a plain slice, which it does not
// modify.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// Report adds p50, p99 and max metrics in microseconds to b, with units
// "p50-µs", "p99-µs" and "max-µs" (prefixed by prefix when it is not empty).
func (s *Samples) Report(b *testing.B, prefix string) {
	s.ReportIn(b, prefix, time.Microsecond, "µs")
}

// ReportIn is Report in another unit, e.g. time.Millisecond and "ms".
func (s *Samples) ReportIn(b *testing.B, prefix string, unit time.Duration, suffix string) {
	if prefix != "" {
		prefix += "-"
	}
	f := func(d time.Duration) float64 { return float64(d) / float64(unit) }
	b.ReportMetric(f(s.Percentile(50)), prefix+"p50-"+suffix)
	b.ReportMetric(f(s.Percentile(99)), prefix+"p99-"+suffix)
	b.ReportMetric(f(s.Max()), prefix+"max-"+suffix)
}

// Latency warms up with warm calls of call, then times b.N sequential calls
// and reports their p50, p99 and max (Report) and allocations. A failed
// call fails b.
func Latency(b *testing.B, warm int, call func() error) *Samples {
	b.Helper()
	for range warm { // warm up connections, buffers and the scheduler
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	samples := NewSamples(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		err := call()
		samples.Add(time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	samples.Report(b, "")
	return samples
}
