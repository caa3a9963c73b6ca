// Package benchutil holds helpers shared by the project's benchmarks:
// latency samples with nearest-rank percentiles reported as benchmark
// metrics (Latency times a call b.N times), a process's memory as Linux's
// /proc/<pid>/status reports it (Memory, ReadStatus), and the fake
// plugin's benchmark reply. It imports only test/fakeplugin (and so
// protocol) from the project, so the tests of any other package may use it.
package benchutil
