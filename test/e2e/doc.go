// Package e2e tests the built studio-bridge binary end to end: real
// processes (serve hosts and standbys, one-shot commands) on real loopback
// ports, with in-process fake Studio plugins (test/fakeplugin). The binary is
// built once per test run, in TestMain.
package e2e
