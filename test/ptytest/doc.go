// Package ptytest opens pseudo-terminals for tests that type into a program
// and read its screen, as a person at a terminal would.
package ptytest
