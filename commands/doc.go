// Package commands holds every studio-bridge command as one Definition in
// one registry, All, and the one path that runs them, Invoke. The CLI, the
// interactive terminal and the MCP server are renderers over it: each binds
// arguments its own way, hands a Request to Invoke, and renders the Outcome.
// None of them is imported here, and no command logic or error
// classification lives in them.
//
// # Writing a command
//
// A command's arguments are one struct whose field tags describe each
// argument once; flags, usage text, terminal dot-command words and the MCP
// JSON schema are all derived from it (see Arg and Fields). Its result data
// is one type too, from which MCP's output schema is derived. Define ties
// them together, typed, so no Run and no surface asserts a type:
//
//	var Grep = Define(Spec[GrepArgs, GrepData]{
//		Definition: Definition{
//			Name: "grep", Group: Script, Summary: "…", Title: "…",
//			NeedsSession: true, MCP: true, Timeout: 10 * time.Second, Noun: "Script search",
//		},
//		Check: func(args *GrepArgs) error { … },   // optional: validation beyond the tags
//		Run: func(ctx context.Context, env *Env, args *GrepArgs) (*Result, error) { … },
//	})
//
// then add it to All, in help order. Retarget, PrepareCLI and Standalone
// are optional hooks (exec uses all three). Errors a user can fix are
// UsageError; when their text names an argument or a next step, build them
// with Usagef or Wordf and ArgName / StepTo, so each surface spells them its
// own way (--root on the CLI, root on MCP; see Spelling).
//
// # Groups
//
// Commands that belong together under one parent (script read, script grep,
// script edit) share a *Group: each leaf is still one Definition, with
// Group set and Name the leaf's own word. Path is then "script grep"; the
// CLI makes the group a command with a subcommand per leaf, the terminal a
// dot-command whose first word picks the leaf (.script grep …), and MCP a
// tool per leaf (studio_script_grep). LookupIn and GroupIn find them in any
// registry, so tests can build a registry of their own.
//
// # Invoking
//
// Invoke validates (tags, then Check), refuses a session for a standalone
// run, retargets, joins the network (Request.Connect, only for a valid
// invocation), resolves the session (waiting when asked, or keeping the one
// the surface is attached to), runs, and classifies the end (Classify) into
// an Outcome: Done with a Result, or Usage, NoSession, Ambiguous,
// Unavailable, TimedOut, Cancelled or Failed with the protocol code, the
// error and its detail. Adding a surface means writing a renderer of
// Outcome.
package commands
