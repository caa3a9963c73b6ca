package testrun

import "strings"

// A small Luau tokenizer for following requires: identifiers, strings
// (their value, escapes decoded where simple), numbers and punctuation;
// comments and whitespace are dropped. It does not validate: text it does
// not understand becomes punctuation, which no require chain contains, so
// the require does not resolve and the spec runs.

type tokenKind int

const (
	tPunct tokenKind = iota
	tIdent
	tString
	tNumber
)

type token struct {
	kind tokenKind
	text string // the identifier, the string's value, the number or the punctuation
}

// operators of two or three characters, so "==" is never read as "=".
var operators = []string{"...", "..=", "==", "~=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "^=", "//=", "//", "..", "::", "->"}

func scan(src string) []token {
	var out []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			i += 2
			if n, ok := longBracket(src, i); ok {
				i = skipLong(src, i+n+2, n)
			} else {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		case c == '[':
			if n, ok := longBracket(src, i); ok {
				start := i + n + 2
				end := skipLong(src, start, n)
				body := src[start:min(len(src), max(start, end-n-2))]
				out = append(out, token{tString, strings.TrimPrefix(body, "\n")})
				i = end
			} else {
				out = append(out, token{tPunct, "["})
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			var b strings.Builder
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) {
					i++
					switch src[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[i])
					}
					i++
					continue
				}
				b.WriteByte(src[i])
				i++
			}
			i++ // the closing quote
			if c == '`' {
				out = append(out, token{tPunct, "`"}) // an interpolated string is no name
			} else {
				out = append(out, token{tString, b.String()})
			}
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			out = append(out, token{tIdent, src[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			out = append(out, token{tNumber, src[i:j]})
			i = j
		default:
			op := string(c)
			for _, o := range operators {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			out = append(out, token{tPunct, op})
			i += len(op)
		}
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// longBracket reports whether src[i:] opens a long bracket ([[ or [==[)
// and its level (the number of =).
func longBracket(src string, i int) (int, bool) {
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	n := 0
	for i+1+n < len(src) && src[i+1+n] == '=' {
		n++
	}
	return n, i+1+n < len(src) && src[i+1+n] == '['
}

// skipLong is the index just past the long bracket of level n closing at or
// after i (the end of src when it never closes).
func skipLong(src string, i, n int) int {
	closing := "]" + strings.Repeat("=", n) + "]"
	j := strings.Index(src[i:], closing)
	if j < 0 {
		return len(src)
	}
	return i + j + len(closing)
}
