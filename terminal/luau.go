package terminal

import "strings"

// chunkComplete reports whether src is a whole Luau chunk, so the terminal
// knows whether Enter runs it or continues it on the next line. It balances
// blocks (function/do/then/repeat against end/until, with elseif reopening),
// brackets, strings, long strings and comments, and a chunk whose last token
// needs more (`x = 1 +`, `local a,`, `return a and`) continues; it does not
// judge whether the chunk is valid. A chunk with too many closers is
// complete: running it shows the compile error.
//
// Luau's if-expression (`x = if a then b else c`) has no end: an if where an
// expression goes opens no block, and continues until its else.
func chunkComplete(src string) bool {
	depth, brackets := 0, 0
	var ifs ifStack
	last := "" // the last token, or a stand-in for a string or number
	i, n := 0, len(src)
	for i < n {
		c := src[i]
		prev := last
		if c > ' ' && !(c == '-' && i+1 < n && src[i+1] == '-') {
			last = string(c)
		}
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
				last = "string"
				continue
			}
			brackets++
			i++
		case c == '"' || c == '\'' || c == '`':
			j, end := skipString(src, i)
			switch end {
			case stringOpen:
				return false
			case stringBroken:
				return true // no more lines can mend it: let the compiler say so
			}
			i, last = j, "string"
		case c >= '0' && c <= '9':
			i, last = skipNumber(src, i), "number"
		case strings.HasPrefix(src[i:], "..."):
			i, last = i+3, "..."
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
			last = src[i:j]
			switch last {
			case "if":
				ifs.push(ifs.expressionAfter(prev))
			case "then":
				if !ifs.inExpression() {
					ifs.pop() // the statement's condition has ended
					depth++
				}
			case "elseif":
				if !ifs.inExpression() {
					depth--         // its "then" opens again
					ifs.push(false) // a condition until then
				}
			case "else":
				ifs.elseOfExpression = ifs.inExpression()
				if ifs.elseOfExpression {
					ifs.pop() // the last branch follows
				}
			case "function", "do", "repeat":
				depth++
			case "end", "until":
				depth--
			}
			i = j
		default:
			i++
		}
	}
	return depth <= 0 && brackets <= 0 && len(ifs.open) == 0 && !continues(last)
}

// ifStack follows the ifs whose end is not known by block depth: a
// statement's until its then, an expression's until its else.
type ifStack struct {
	open []bool // true: an if-expression
	// elseOfExpression: the latest else was an if-expression's, so an if
	// right after it is an expression too.
	elseOfExpression bool
}

func (s *ifStack) push(expression bool) { s.open = append(s.open, expression) }

func (s *ifStack) pop() {
	if len(s.open) > 0 {
		s.open = s.open[:len(s.open)-1]
	}
}

// inExpression reports whether the innermost open if is an expression.
func (s *ifStack) inExpression() bool { return len(s.open) > 0 && s.open[len(s.open)-1] }

// expressionAfter reports whether an if after token prev is an expression:
// it follows an operator, an opening bracket, a comma, return, or the then
// or else of an if-expression; after anything else it starts a statement.
func (s *ifStack) expressionAfter(prev string) bool {
	switch prev {
	case "=", "(", "[", "{", ",", "+", "-", "*", "/", "%", "^", ".", "<", ">", "~", "#",
		"return", "and", "or", "not", "in":
		return true
	case "then":
		return s.inExpression()
	case "else":
		return s.elseOfExpression
	}
	return false
}

// continues reports whether a chunk ending in token needs more: a binary
// operator, an assignment, a comma, an index or method colon, or a keyword
// that starts an expression or a statement.
func continues(token string) bool {
	switch token {
	case "+", "-", "*", "/", "%", "^", "=", "<", ">", "~", ",", ".", ":", "#",
		"and", "or", "not", "local", "in", "if", "then", "elseif", "else", "while", "until", "for":
		return true
	}
	return false
}

// skipNumber returns the index after the number starting at i (decimal,
// hex or binary, with fractions, exponents and _ separators).
func skipNumber(src string, i int) int {
	j := i
	for j < len(src) {
		c := src[j]
		switch {
		case isIdentPart(c) || c == '.':
			j++
		case (c == '+' || c == '-') && (src[j-1] == 'e' || src[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(src[i:]), "0x"):
			j++
		default:
			return j
		}
	}
	return j
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

// stringEnd is how a string token ends.
type stringEnd int

const (
	stringClosed stringEnd = iota // by its closing quote
	stringOpen                    // not yet: the chunk continues
	stringBroken                  // never: a syntax error
)

// skipString returns the index after the string starting at i, and how it
// ends. A quoted string cannot span lines: at a newline, or at the end of
// the chunk (the end of the line typed), it is broken, unless an escape
// carries it on: a backslash just before the newline, or \z, which skips
// the whitespace (newlines included) after it. An interpolated string waits
// for its closing backtick.
func skipString(src string, i int) (int, stringEnd) {
	q, n := src[i], len(src)
	for j := i + 1; j < n; j++ {
		switch src[j] {
		case '\\':
			if j+1 >= n {
				return n, stringOpen // an escaped newline comes next
			}
			if src[j+1] != 'z' {
				j++
				continue
			}
			k := j + 2
			for k < n && isSpace(src[k]) {
				k++
			}
			if k >= n {
				return n, stringOpen // \z skips the newline that comes next
			}
			j = k - 1
		case q:
			return j + 1, stringClosed
		case '\n':
			if q != '`' {
				return j, stringBroken
			}
		}
	}
	if q == '`' {
		return n, stringOpen
	}
	return n, stringBroken
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
