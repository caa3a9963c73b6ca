// Package ptytest runs programs on a real terminal for tests that type into
// them and read their screen, as a person at a terminal would.
//
//   - Start runs a program as a child process in a terminal of its own on
//     every platform: a pseudo-terminal on Linux and macOS, a pseudo console
//     (ConPTY) on Windows. The Windows half is compile-checked only
//     (GOOS=windows go vet): no Windows machine has run it yet.
//   - Open returns a pseudo-terminal's two ends as files, for a test that
//     runs the code under test in its own process on the slave (Record
//     reads the master). Windows has no such pair: Open skips there.
package ptytest
