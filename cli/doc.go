// Package cli is studio-bridge's command-line surface: the urfave/cli
// adapter that turns the command registry (package commands) into commands
// and flags, and wires the two surfaces that are not registry commands,
// the terminal (package terminal) and the MCP server (package mcp).
//
// A registry command binds its flags and positionals into the command's
// Args and hands them to commands.Invoke; a group's leaves become
// subcommands of one parent command. Run returns errors rather than exit
// codes: the main package reports them and maps the kind commands.Classify
// gives them to the exit codes the README documents. Dependencies flow
// one way: main → cli → {terminal, mcp, commands} → bridge → protocol;
// nothing below cli knows about the command line.
//
// Within the package, app.go builds the app from the command files
// (command.go for registry commands, terminal.go, mcp.go, completion.go),
// which build on the shared flags (flags.go) and environment (env.go);
// args.go lets flags follow positionals, and output.go renders streamed
// lines and status for people.
package cli
