// Package benchutil holds helpers shared by the project's benchmarks:
// latency samples with nearest-rank percentiles reported as benchmark
// metrics. It imports nothing from the project, so any package's tests may
// use it.
package benchutil
