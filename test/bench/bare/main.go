// Command bare does nothing: the floor for a Go process's start-up and exit
// on this machine, which the cold-exec benchmark in test/bench times next to
// `studio-bridge exec`. It is built with the release's flags.
package main

func main() {}
