package kit

import "testing"

// SkipIfShort skips tb under `go test -short`, the seconds-long inner loop,
// saying why (what makes the test slow: a real process, the emulator, a
// flood). The full suite, the README's test command, runs it. Starting a
// real process (Start, Binary, Build, Studio) calls it, so such tests need
// no call of their own.
func SkipIfShort(tb testing.TB, why string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip(why + ": slow; runs in the full suite")
	}
}
