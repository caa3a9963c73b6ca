package terminal

import (
	"fmt"
	"sort"
	"strings"

	"github.com/studio-bridge/studio-bridge/commands"
)

// builtins are the dot-commands that belong to the terminal itself; every
// other dot-command is a registry command.
var builtins = []struct{ name, usage, summary string }{
	{"help", ".help", "list the dot-commands"},
	{"exit", ".exit", "leave the terminal (or Ctrl-D)"},
	{"clear", ".clear", "clear the screen"},
	{"run", ".run <file>", "run a Luau file in the attached session"},
	{"connect", ".connect [id]", "attach to a session: a session id, an instance id or a unique prefix (default: the only Studio instance)"},
	{"disconnect", ".disconnect", "detach from the session"},
	{"context", ".context <edit|server|client>", "attach to another DataModel of the same Studio window"},
}

// DotCommands are the registry commands the terminal offers as
// dot-commands: all but the long-running and hidden ones.
func DotCommands() []*commands.Definition {
	var out []*commands.Definition
	for _, d := range commands.All {
		if !d.LongRunning && !d.Hidden {
			out = append(out, d)
		}
	}
	return out
}

// dot runs a dot-command line; errExit asks the terminal to end.
func (r *repl) dot(line string) error {
	words, err := splitWords(line)
	if err != nil {
		r.printError(err)
		return nil
	}
	name, rest := strings.TrimPrefix(words[0], "."), words[1:]
	switch name {
	case "help":
		r.help()
	case "exit", "quit":
		return errExit
	case "clear":
		if r.screen != nil {
			fmt.Fprint(r.out, "\x1b[H\x1b[2J")
		}
	case "run":
		r.runFile(rest)
	case "connect":
		r.connect(rest)
	case "disconnect":
		r.attached = false
		r.say("Detached.")
	case "context":
		r.switchContext(rest)
	default:
		r.runRegistry(name, rest)
	}
	return nil
}

// runFile runs .run <file>: a Luau file in the attached session.
func (r *repl) runFile(rest []string) {
	if len(rest) != 1 {
		r.failures++
		r.say("usage: .run <file>")
		return
	}
	src, err := commands.LoadScript(rest[0], strings.NewReader(""))
	if err != nil {
		r.printError(err)
		return
	}
	r.exec(src)
}

// runRegistry runs a registry command named by a dot-command.
func (r *repl) runRegistry(name string, words []string) {
	d := commands.Lookup(name)
	if g := commands.GroupIn(commands.All, name); d == nil && g != nil && len(words) > 0 {
		d, name, words = commands.Lookup(name+" "+words[0]), name+" "+words[0], words[1:]
	}
	if d == nil || d.LongRunning || d.Hidden {
		r.failures++
		r.say("Unknown command .%s; .help lists them.", name)
		return
	}
	args, err := dotArgs(d, words)
	if err == nil {
		err = d.Prepare(args, strings.NewReader(""))
	}
	if err != nil {
		r.printError(err)
		return
	}
	r.runCommand(d, args)
}

// help lists the dot-commands: the result of .help, so on stdout.
func (r *repl) help() {
	type row struct{ usage, summary string }
	var rows []row
	for _, b := range builtins {
		rows = append(rows, row{b.usage, b.summary})
	}
	for _, d := range DotCommands() {
		rows = append(rows, row{"." + d.Usage(), d.Summary})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].usage < rows[j].usage })
	width := 0
	for _, x := range rows {
		width = max(width, len(x.usage))
	}
	fmt.Fprintln(r.out, "Type Luau and press Enter to run it (an unfinished chunk continues on the next line).")
	for _, x := range rows {
		fmt.Fprintf(r.out, "  %-*s  %s\n", width, x.usage, x.summary)
	}
	fmt.Fprintln(r.out, "Ctrl-C cancels a running script or clears the line; Ctrl-D exits.")
}
