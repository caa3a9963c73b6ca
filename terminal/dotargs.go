package terminal

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/studio-bridge/studio-bridge/commands"
)

// splitWords splits a dot-command line into words; single or double quotes
// keep spaces inside a word.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// dotArgs fills a command's Args from dot-command words: --flag value,
// --flag=value, -s value, switch flags (--head), and bare words, which fill
// the positional arguments and then the ones tagged word.
func dotArgs(d *commands.Definition, words []string) (any, error) {
	bind := d.NewBinder()
	fields := commands.Fields(d.Args)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' {
			if ok, err := bind.Word(w); !ok {
				return nil, fmt.Errorf("unexpected %q; usage: .%s", w, d.Usage())
			} else if err != nil {
				return nil, err
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		a, isSwitch, ok := findFlag(fields, name)
		if !ok {
			return nil, fmt.Errorf("unknown flag %s; usage: .%s", w, d.Usage())
		}
		switch {
		case isSwitch:
			val = name
		case a.Kind == reflect.Bool && !hasVal:
			val = "true"
		case !hasVal:
			if i+1 >= len(words) {
				return nil, fmt.Errorf("%s needs a value", w)
			}
			i++
			val = words[i]
		}
		if err := bind.Set(a, val); err != nil {
			return nil, err
		}
	}
	return bind.Args, nil // Invoke validates it
}

func findFlag(fields []commands.Arg, name string) (commands.Arg, bool, bool) {
	for _, a := range fields {
		if a.NoCLI {
			continue
		}
		if a.Switch {
			for _, v := range a.Enum {
				if v == name {
					return a, true, true
				}
			}
			continue
		}
		if a.Flag == name || (a.Short != "" && a.Short == name) {
			return a, false, true
		}
	}
	return commands.Arg{}, false, false
}
