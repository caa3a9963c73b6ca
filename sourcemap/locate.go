package sourcemap

import (
	"strconv"
	"strings"
)

// Location is one location of a line of output, as --json reports it: the
// DataModel path (or chunk name) and line, and the file it comes from when
// one is known (omitted otherwise).
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	File string `json:"file,omitempty"`
}

// FileOf is the file a chunk name comes from, as shown to people: the
// mapped file of a DataModel path, the chunk name itself when it is already
// a .luau/.lua file path (exec FILE names its chunk after the file), or "".
func (m *Map) FileOf(path string) string {
	if m != nil {
		if e, ok := m.byPath[path]; ok {
			return m.Prefix + e.File
		}
	}
	if isFileChunk(path) {
		return path
	}
	return ""
}

// isFileChunk says whether a chunk name is a file path: a .luau/.lua name
// with a folder ("scripts/run.luau"), or a bare file name with no other dot
// ("run.luau"; "Shared.Util.lua" is a DataModel path). A path shortened to
// fit the plugin's 100-character chunk names ("…/deep/run.luau") is not.
func isFileChunk(path string) bool {
	if !isScriptFile(path) || strings.HasPrefix(path, "…") || strings.HasPrefix(path, "...") {
		return false
	}
	if strings.ContainsAny(path, `/\`) {
		return true
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(path, ".luau"), ".lua")
	return !strings.Contains(stem, ".")
}

// Locate returns every location in line with its file, or nil when there
// is none.
func (m *Map) Locate(line string) []Location {
	locs := Scan(line)
	if len(locs) == 0 {
		return nil
	}
	out := make([]Location, len(locs))
	for i, l := range locs {
		out[i] = Location{Path: l.Path, Line: l.Line, File: m.FileOf(l.Path)}
	}
	return out
}

// Rewrite puts the file first in every location of line that has one:
// "ServerScriptService.Main:27: boom" becomes "src/server/Main.server.luau:27:
// boom", and Studio's "Script 'ServerScriptService.Main', Line 27 - function
// f" becomes "src/server/Main.server.luau:27 (ServerScriptService.Main) -
// function f", keeping the DataModel path Studio's Output shows. A line with
// no mapped location is returned as it is.
func (m *Map) Rewrite(line string) string {
	var buf [8]Loc
	locs := AppendScan(buf[:0], line)
	if len(locs) == 0 {
		return line
	}
	var b strings.Builder
	prev := 0
	for _, l := range locs {
		file := m.FileOf(l.Path)
		if file == "" || (file == l.Path && l.Kind != KindStudio) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(line) + 32)
		}
		b.WriteString(line[prev:l.Start])
		b.WriteString(file)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(l.Line))
		if l.Kind == KindStudio && file != l.Path {
			b.WriteString(" (")
			b.WriteString(l.Path)
			b.WriteByte(')')
		}
		prev = l.End
	}
	if prev == 0 {
		return line
	}
	b.WriteString(line[prev:])
	return b.String()
}

// RewriteText rewrites every line of text (Rewrite), keeping line ends.
func (m *Map) RewriteText(text string) string {
	if strings.IndexByte(text, '\n') < 0 {
		return m.Rewrite(text)
	}
	var b strings.Builder
	b.Grow(len(text))
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			b.WriteString(m.Rewrite(text))
			break
		}
		b.WriteString(m.Rewrite(text[:i]))
		b.WriteByte('\n')
		text = text[i+1:]
	}
	return b.String()
}
