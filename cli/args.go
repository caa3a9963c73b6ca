package cli

import (
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags ahead of its positional arguments, so
// `studio-bridge call state --session X` works although urfave/cli v2 stops
// parsing flags at the first positional. "--" ends flag handling as usual;
// "-" (stdin) is a positional.
func interspersed(app *cli.App, args []string) []string {
	if n := len(args); n >= 2 && args[n-1] == completionFlag {
		// Shell completion reads the words as the shell gave them. A word
		// "--" being completed asks for flags, but urfave/cli takes it as
		// the end of flags and turns completion off: ask with "-" instead.
		if n >= 3 && args[n-2] == "--" {
			return append(append([]string{}, args[:n-2]...), "-", completionFlag)
		}
		return args
	}
	if len(args) < 2 {
		return args
	}
	// Skip global flags to find the command.
	i := 1
	for i < len(args) && isFlag(args[i]) {
		if takesValue(app.Flags, args[i]) {
			i++
		}
		i++
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	// A group's leaf (script read): its flags are the leaf's.
	for len(cmd.Subcommands) > 0 && i+1 < len(args) {
		sub := cmd.Command(args[i+1])
		if sub == nil {
			break
		}
		cmd, i = sub, i+1
	}
	var flags, positional []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			positional = append(positional, rest[j+1:]...)
			j = len(rest)
		case isFlag(a):
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && j+1 < len(rest) {
				j++
				flags = append(flags, rest[j])
			}
		default:
			positional = append(positional, a)
		}
	}
	out := append([]string{}, args[:i+1]...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// completionFlag is what a completion script appends to ask for candidates.
const completionFlag = "--generate-bash-completion"

// isFlag reports whether a is a flag: dashes, then a name of letters,
// digits and dashes (and perhaps =value). Code such as '--!strict …' or
// '--[[note]] print(1)' starts with dashes too, and is a positional.
func isFlag(a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if len(a) < 2 || a[0] != '-' || a == "--" || name == "" || !unicode.IsLetter(rune(name[0])) {
		return false
	}
	for _, c := range name {
		if c != '-' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// takesValue reports whether flag token a (without "=value") names a
// non-boolean flag among flags.
func takesValue(flags []cli.Flag, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	name := strings.TrimLeft(a, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
