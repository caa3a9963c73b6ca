// Package kit is the one set of helpers for tests that run studio-bridge as
// real processes on real sockets: build the binary once, free loopback
// ports, the environment every child gets (ChildEnv), background processes
// with their output (Start, Proc), stopping processes on every platform,
// polling (WaitFor) and the host's /health.
//
// It imports no studio-bridge package but protocol, so that the bridge
// package's own tests can use it too.
package kit
