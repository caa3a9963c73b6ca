package main

import "strings"

// chunkComplete reports whether src is a whole Luau chunk, so the terminal
// knows whether Enter runs it or continues it on the next line. It balances
// blocks (function/do/then/repeat against end/until, with elseif reopening),
// brackets, strings, long strings and comments; it does not judge whether
// the chunk is valid. A chunk with too many closers is complete: running it
// shows the compile error.
func chunkComplete(src string) bool {
	depth, brackets := 0, 0
	i, n := 0, len(src)
	for i < n {
		c := src[i]
		switch {
		case c == '-' && i+1 < n && src[i+1] == '-':
			i += 2
			if lvl, ok := longBracket(src, i); ok {
				end := strings.Index(src[i:], "]"+strings.Repeat("=", lvl)+"]")
				if end < 0 {
					return false
				}
				i += end + lvl + 2
				continue
			}
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '[':
			if lvl, ok := longBracket(src, i); ok {
				end := strings.Index(src[i:], "]"+strings.Repeat("=", lvl)+"]")
				if end < 0 {
					return false
				}
				i += end + lvl + 2
				continue
			}
			brackets++
			i++
		case c == '"' || c == '\'' || c == '`':
			j, ok := skipString(src, i)
			if !ok {
				return false
			}
			i = j
		case c == '(' || c == '{':
			brackets++
			i++
		case c == ')' || c == '}' || c == ']':
			brackets--
			i++
		case isIdentStart(c):
			j := i
			for j < n && isIdentPart(src[j]) {
				j++
			}
			switch src[i:j] {
			case "function", "do", "then", "repeat":
				depth++
			case "end", "until":
				depth--
			case "elseif":
				depth-- // its "then" opens again
			}
			i = j
		default:
			i++
		}
	}
	return depth <= 0 && brackets <= 0
}

// longBracket reports whether a long bracket ([[, [=[, …) opens at i, and
// its level.
func longBracket(src string, i int) (int, bool) {
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j < len(src) && src[j] == '[' {
		return j - i - 1, true
	}
	return 0, false
}

// skipString returns the index after the string starting at i, or false if
// it does not end (a newline ends a quoted string, unless escaped).
func skipString(src string, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, true
		case '\n':
			if q != '`' {
				return j, true // unfinished quoted string: let the compiler say so
			}
		}
	}
	return len(src), false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
