// Package bench holds process-level benchmarks of studio-bridge: a real
// `studio-bridge serve` host process, fake plugins and joined clients, and
// kill -9 failover. They run only with -bench; see docs/performance.md for
// the commands and the latest figures.
package bench
