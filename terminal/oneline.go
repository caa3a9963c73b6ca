package terminal

import "strings"

// oneLine rewrites a chunk typed over several lines as one line that runs
// the same, for the line editor's history (as bash keeps a multi-line
// command): a newline between tokens becomes a space, a line comment a long
// comment, an escaped newline in a quoted string \n, and a long string that
// spans lines a quoted string.
func oneLine(src string) string {
	if !strings.ContainsAny(src, "\r\n") {
		return src
	}
	var b strings.Builder
	i, n := 0, len(src)
	for i < n {
		c := src[i]
		switch {
		case c == '-' && i+1 < n && src[i+1] == '-':
			if lvl, ok := longBracket(src, i+2); ok {
				end, _ := closeLong(src, i+2, lvl)
				b.WriteString(strings.NewReplacer("\r", " ", "\n", " ").Replace(src[i:end]))
				i = end
				continue
			}
			j := i + 2
			for j < n && src[j] != '\n' && src[j] != '\r' {
				j++
			}
			text := src[i+2:j] + " "
			eq := ""
			for strings.Contains(text, "]"+eq+"]") {
				eq += "="
			}
			b.WriteString("--[" + eq + "[" + text + "]" + eq + "]")
			i = j
		case c == '[':
			lvl, ok := longBracket(src, i)
			if !ok {
				b.WriteByte(c)
				i++
				continue
			}
			end, closed := closeLong(src, i, lvl)
			if !closed || !strings.ContainsAny(src[i:end], "\r\n") {
				b.WriteString(strings.NewReplacer("\r", " ", "\n", " ").Replace(src[i:end]))
				i = end
				continue
			}
			body := src[i+lvl+2 : end-lvl-2]
			// Luau drops a newline just after the opening bracket.
			for _, nl := range []string{"\r\n", "\n\r", "\n", "\r"} {
				if strings.HasPrefix(body, nl) {
					body = body[len(nl):]
					break
				}
			}
			b.WriteString(`"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`).Replace(body) + `"`)
			i = end
		case c == '"' || c == '\'' || c == '`':
			j, _ := skipString(src, i)
			writeOneLineString(&b, src[i:j])
			i = j
		case c == '\n' || c == '\r':
			b.WriteByte(' ')
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closeLong returns the index after the long bracket of level lvl opened
// at i, or the end of src and false if it never closes.
func closeLong(src string, i, lvl int) (int, bool) {
	end := strings.Index(src[i+lvl+2:], "]"+strings.Repeat("=", lvl)+"]")
	if end < 0 {
		return len(src), false
	}
	return i + lvl + 2 + end + lvl + 2, true
}

// writeOneLineString writes a string token with its newlines escaped: an
// escaped newline becomes \n, and whitespace that \z skips a space.
func writeOneLineString(b *strings.Builder, s string) {
	skipping := false // after \z, until the next non-space
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case skipping && isSpace(c):
			if c == '\n' || c == '\r' {
				c = ' '
			}
			b.WriteByte(c)
			continue
		case c == '\\' && k+1 < len(s):
			b.WriteByte(c)
			k++
			switch s[k] {
			case '\n':
				b.WriteByte('n')
			case '\r':
				b.WriteByte('r')
			default:
				b.WriteByte(s[k])
			}
			skipping = s[k] == 'z'
			continue
		case c == '\n':
			b.WriteString(`\n`) // inside an interpolated string
		case c == '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
		skipping = false
	}
}
