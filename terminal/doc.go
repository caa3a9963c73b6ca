// Package terminal is studio-bridge's interactive surface: a Luau
// read-eval loop attached to one Studio session, with dot-commands drawn
// from the command registry (.state, .logs, .query, …) and a few of its own
// (.connect, .context, .run, …).
//
// On a real terminal it puts the keyboard in raw mode and edits lines with
// golang.org/x/term: history kept across runs in terminal_history in
// studio-bridge's config directory (STUDIO_BRIDGE_CONFIG_DIR, as the token;
// a chunk typed over several lines is one entry), Home/End as terminal multiplexers send them, Ctrl-C
// cancelling what runs. Anywhere else it reads lines from its input and
// keeps stdout for results only: the banner, notices and errors go to
// stderr, and prompts go to stderr when a person types (stdin is a
// terminal) and nowhere otherwise, so `studio-bridge terminal < script >
// out` captures what the script printed.
//
// It lives apart from the CLI adapter (package cli), which parses the
// command line and hands Run a bridge connection, so that the terminal
// depends only on commands, bridge and protocol, and its tests drive it
// without a command line.
package terminal
