// Package testutil holds the helpers that the test packages share: a free
// loopback port and a freshly built studio-bridge binary.
package testutil
