// Package plugin carries the built Studio plugin into the studio-bridge
// binary, so `studio-bridge install-plugin` needs neither Rojo nor Node on
// the user's machine. The Luau source is in src/ (see README.md); the build
// in build/ is made by `task plugin` and a test keeps it equal to what the
// source builds to.
package plugin
