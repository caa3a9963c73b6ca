package sourcemap

import "strings"

// Kind says which form a location was written in.
type Kind uint8

const (
	// KindPrefix is a chunk name and line before a colon, as Luau starts an
	// error message: "ServerScriptService.Main:27: attempt to index nil".
	KindPrefix Kind = iota + 1
	// KindFrame is a chunk name and line with no colon after it, as
	// debug.traceback writes a frame ("ReplicatedStorage.Util:3 function f")
	// and Studio ends an Output line ("- Server - Main:27"); taken only at the
	// start of a line or after " - ", "at ", "in " or "from ".
	KindFrame
	// KindStudio is Studio's stack line: "Script 'ServerScriptService.Main', Line 27".
	KindStudio
)

// Loc is one location found in a line: the chunk name (a DataModel path, or
// a file path when the chunk was named after its file) and the line, and
// where it is written (Start:End, bytes).
type Loc struct {
	Path       string
	Line       int
	Start, End int
	Kind       Kind
}

const studioOpen = "Script '"
const studioLine = "', Line "

// Scan returns every location in line, in order.
func Scan(line string) []Loc { return AppendScan(nil, line) }

// AppendScan appends the locations in line to dst.
func AppendScan(dst []Loc, line string) []Loc {
	floor := 0 // where the last location ended: the next starts after it
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case 'S':
			if loc, ok := parseStudio(line, i); ok {
				dst = append(dst, loc)
				i, floor = loc.End-1, loc.End
			}
		case ':':
			if loc, ok := parseColon(line, i, floor); ok {
				dst = append(dst, loc)
				i, floor = loc.End-1, loc.End
			}
		}
	}
	return dst
}

// parseStudio reads "Script 'A.B', Line N" at i.
func parseStudio(line string, i int) (Loc, bool) {
	if !strings.HasPrefix(line[i:], studioOpen) || (i > 0 && isWordByte(line[i-1])) {
		return Loc{}, false
	}
	start := i + len(studioOpen)
	end := strings.Index(line[start:], studioLine)
	if end <= 0 {
		return Loc{}, false
	}
	path := line[start : start+end]
	if strings.IndexByte(path, '\'') >= 0 || strings.IndexByte(path, '\n') >= 0 {
		return Loc{}, false
	}
	n, j, ok := digits(line, start+end+len(studioLine))
	if !ok || (j < len(line) && isWordByte(line[j])) {
		return Loc{}, false
	}
	return Loc{Path: path, Line: n, Start: i, End: j, Kind: KindStudio}, true
}

// parseColon reads "<chunk>:N" around the colon at i.
func parseColon(line string, i, floor int) (Loc, bool) {
	n, j, ok := digits(line, i+1)
	if !ok {
		return Loc{}, false
	}
	kind := KindFrame
	if j < len(line) {
		switch c := line[j]; c {
		case ':':
			kind = KindPrefix
		case ' ', '\t', '\r', '\n', ')', ',', ';', ']':
		default:
			return Loc{}, false // 12:30.5, host:80/path, A:1x
		}
	}
	s := tokenStart(line, i, floor)
	if s == i {
		return Loc{}, false
	}
	path := line[s:i]
	if !plausible(path) {
		return Loc{}, false
	}
	if kind == KindFrame && !frameContext(line, s) {
		return Loc{}, false
	}
	return Loc{Path: path, Line: n, Start: s, End: j, Kind: kind}, true
}

// tokenStart walks back from the colon at i over a chunk name: Luau's
// [string "…"] form, or a run of bytes that are not spaces, quotes,
// brackets or colons, with a Windows drive letter (C:\x.luau) kept; never
// before floor.
func tokenStart(line string, i, floor int) int {
	if i > floor && line[i-1] == ']' {
		if k := strings.LastIndex(line[floor:i], `[string "`); k >= 0 && i-(floor+k) >= len(`[string ""]`) && line[i-2] == '"' {
			return floor + k
		}
	}
	s := i
	for s > floor && isChunkByte(line[s-1]) {
		s--
	}
	if s >= floor+2 && s < i && (line[s] == '\\' || line[s] == '/') && line[s-1] == ':' && isLetter(line[s-2]) && (s == floor+2 || !isChunkByte(line[s-3])) {
		s -= 2
	}
	return s
}

// plausible rejects what is no chunk name: numbers (12:30:45, 127.0.0.1:80),
// URLs, and names with nothing but punctuation.
func plausible(path string) bool {
	if strings.Contains(path, "//") {
		return false
	}
	for i := 0; i < len(path); i++ {
		if isLetter(path[i]) || path[i] >= 0x80 {
			return true
		}
	}
	return false
}

// frameContext says whether a frame at s stands where Studio and Luau write
// one: first on the line, or after " - ", "at ", "in ", "from ".
func frameContext(line string, s int) bool {
	k := s
	for k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') {
		k--
	}
	if k == 0 {
		return true
	}
	before := line[:k]
	if strings.HasSuffix(before, " -") || before == "-" {
		return true
	}
	if k == s {
		return false // no space before the name
	}
	for _, w := range [...]string{"at", "in", "from"} {
		if strings.HasSuffix(before, w) && (len(before) == len(w) || !isWordByte(before[len(before)-len(w)-1])) {
			return true
		}
	}
	return false
}

// digits reads a line number (1 to 999,999,999) at i: the number and the
// index after it.
func digits(line string, i int) (int, int, bool) {
	n, j := 0, i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		if j-i == 9 {
			return 0, 0, false
		}
		n = n*10 + int(line[j]-'0')
		j++
	}
	return n, j, j > i && n > 0
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isWordByte(c byte) bool { return isLetter(c) || c == '_' || (c >= '0' && c <= '9') }

// isChunkByte: bytes a chunk name is made of when written without quotes.
func isChunkByte(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\'', '"', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', ':', '=', '|', '*', '?':
		return false
	}
	return c >= 0x20 && c != 0x7f
}
