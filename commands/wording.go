package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Spelling is how one surface writes the words that differ between
// surfaces: an argument's name (--root on the CLI, root on MCP), a step the
// user can take next, and the usage line a bad invocation points at.
type Spelling interface {
	// Arg spells an argument by its JSON name.
	Arg(name string) string
	// Step spells running command path with its bare words.
	Step(path string, words ...string) string
	// Usage is what a usage error about command path ends with ("" for
	// none).
	Usage(path string) string
	// Folder names the current folder of the process running the command
	// (abs, or "" when unknown): "the current folder" to someone who typed
	// the command there, its path to an agent that cannot know it.
	Folder(abs string) string
}

// People is the spelling for people at a command line (the CLI and the
// terminal): --flags and `studio-bridge …` steps. Error() texts use it.
var People Spelling = peopleSpelling{}

type peopleSpelling struct{}

func (peopleSpelling) Arg(name string) string {
	for _, d := range All {
		for _, a := range Fields(d.Args) {
			if a.Name == name && !a.NoCLI {
				return "--" + a.Flag
			}
		}
	}
	return "--" + kebab(name)
}
func (peopleSpelling) Step(path string, words ...string) string {
	return "run `studio-bridge " + strings.Join(append([]string{path}, words...), " ") + "`"
}
func (peopleSpelling) Usage(path string) string {
	if d := Lookup(path); d != nil {
		return "; usage: " + d.Usage()
	}
	return ""
}

func (peopleSpelling) Folder(string) string { return "the current folder" }

// CurrentFolder is the process's current folder in a Worded text (see
// Spelling.Folder).
type CurrentFolder string

// ArgName is an argument's JSON name in a Worded text; each surface spells
// it (--root, root).
type ArgName string

// StepTo is a command the user can run next, in a Worded text: the CLI
// spells it `studio-bridge play stop`, MCP names the tool and its input.
type StepTo struct {
	Path  string
	Words []string
}

// UsageOf ends a Worded usage error with the command's usage line where a
// surface has one (the CLI's "; usage: exec <script>").
type UsageOf string

// Worded is an error whose text names arguments, steps or usage lines,
// which each surface spells its own way (Spell). Error spells them for
// people. Code, when set, is its protocol code (a BUSY that says what to
// do), so protocol.CodeOf still reads it.
type Worded struct {
	Format string
	Args   []any
	Code   protocol.Code
}

// Wordf builds a Worded text.
func Wordf(format string, args ...any) *Worded { return &Worded{Format: format, Args: args} }

// Usagef is a usage error whose text each surface spells (see Worded).
func Usagef(format string, args ...any) UsageError {
	return UsageError{Err: Wordf(format, args...)}
}

func (w *Worded) Error() string { return w.Spell(People) }

// Unwrap gives the protocol error a coded Worded stands for.
func (w *Worded) Unwrap() error {
	if w.Code == "" {
		return nil
	}
	return &protocol.Error{Code: w.Code, Message: w.Error()}
}

// Spell writes the text as surface s spells it.
func (w *Worded) Spell(s Spelling) string {
	args := make([]any, len(w.Args))
	for i, a := range w.Args {
		switch a := a.(type) {
		case ArgName:
			args[i] = s.Arg(string(a))
		case StepTo:
			args[i] = s.Step(a.Path, a.Words...)
		case UsageOf:
			args[i] = s.Usage(string(a))
		case CurrentFolder:
			args[i] = s.Folder(string(a))
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(w.Format, args...)
}

// SpellError is err's text as surface s spells it: a Worded inside it
// (also under prefixes such as "test: …") in s's spelling, else err's own
// text.
func SpellError(err error, s Spelling) string {
	text := err.Error()
	var w *Worded
	if errors.As(err, &w) {
		text = strings.Replace(text, w.Error(), w.Spell(s), 1)
	}
	return text
}
