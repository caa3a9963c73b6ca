package terminal

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
)

// say tells the person something: a notice, not a result.
func (r *repl) say(format string, a ...any) {
	fmt.Fprintf(r.msg, format+"\n", a...)
}

// endLine leaves the cursor at the start of a fresh line for the shell. In
// raw mode it writes past the line editor, which would draw its prompt
// again after anything written through it; elsewhere it ends the last
// prompt, if prompts are shown.
func (r *repl) endLine() {
	if r.screen != nil {
		r.out = crlfWriter{r.screen}
		r.msg = r.out
		fmt.Fprintln(r.msg)
		return
	}
	fmt.Fprintln(r.prompts)
}

// printLine prints a line a command streams: a script's output, or a log
// line. Printed output is a result; info, warnings and errors are said to
// the person, unless the lines are the command's data (followed logs).
func (r *repl) printLine(l commands.Line, data bool) {
	text := strings.TrimSuffix(commands.RenderLine(l), "\n")
	w := r.msg
	if data || (l.Level != "Warning" && l.Level != "Error" && l.Level != "Info") {
		w = r.out
	}
	switch l.Level {
	case "Warning":
		text = r.paint("33", text)
	case "Error":
		text = r.paint("31", text)
	}
	fmt.Fprintln(w, text)
}

// printError prints an error that did not come from Invoke (a bad
// dot-command line, a file that cannot be read) as Invoke's would be.
func (r *repl) printError(err error) { r.printOutcome(commands.Classify(err)) }

// printOutcome is the terminal's rendering of a failed invocation: the
// error in red, a hint under it, and the sessions to choose from.
func (r *repl) printOutcome(o commands.Outcome) {
	if o.Kind == commands.Cancelled {
		r.printColoured("33", "cancelled")
		return
	}
	r.printFailure(o.Err.Error())
	if o.Detail != "" {
		r.say("  %s", o.Detail)
	}
	var ce sessionChoiceError
	switch {
	case len(o.Sessions) > 0:
		fmt.Fprint(r.msg, commands.RenderSessions(o.Sessions, time.Now(), r.aligned))
	case errors.As(o.Err, &ce):
		fmt.Fprint(r.msg, commands.RenderSessions(ce.sessions, time.Now(), r.aligned))
	}
}

// printFailure says that an entry failed (a script error, a refused
// command), in red, and counts it for the exit status of piped input.
func (r *repl) printFailure(text string) {
	r.failures++
	r.printColoured("31", text)
}

// printColoured says text in an ANSI colour (on a terminal).
func (r *repl) printColoured(code, text string) {
	fmt.Fprintln(r.msg, r.paint(code, text))
}

func (r *repl) paint(code, text string) string {
	if !r.colour {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}
