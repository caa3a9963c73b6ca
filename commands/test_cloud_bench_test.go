package commands

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
)

// BenchmarkCloudParallel runs a 200-spec suite against the stand-in, one
// spec in five slow (40 ms of task.wait), the rest 2 ms, with a 100 ms
// cold and 20 ms warm task start, with --parallel 1, 8 (balanced by count)
// and 8 with a timings file from an earlier run (balanced by duration).
// The figure (docs/performance.md) is the wall time of one whole run,
// discovery task included for 8.
//
//	go test -run '^$' -bench CloudParallel -benchtime 3x ./commands/
func BenchmarkCloudParallel(b *testing.B) {
	for _, c := range []struct {
		n       int
		timings bool
	}{{1, false}, {8, false}, {8, true}} {
		name := fmt.Sprintf("parallel=%d", c.n)
		if c.timings {
			name += "+timings"
		}
		b.Run(name, func(b *testing.B) {
			n := c.n
			srv, suite := cloudSuite(b, 200, 2*time.Millisecond)
			for i := range suite.Specs {
				if i%5 == 0 {
					suite.Specs[i].Delay = 40 * time.Millisecond
				}
			}
			srv.Set(func(s *cloudtest.Server) {
				s.Runner = suite.Outcome
				s.ColdStart, s.WarmStart = 100*time.Millisecond, 20*time.Millisecond
			})
			args := TestArgs{CloudTest: CloudTest{Parallel: n}}
			if c.timings {
				args.Timings = filepath.Join(b.TempDir(), "timings.json")
				runCloudTest(b, args) // an earlier run writes it
			}
			b.ResetTimer()
			for range b.N {
				d := runCloudTest(b, args)
				if d.Passed != 400 {
					b.Fatalf("passed %d", d.Passed)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
		})
	}
}
