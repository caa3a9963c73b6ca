package sourcemap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// Bounds checked before a map is parsed: a map of a very large place is a
// few MiB and a few dozen levels deep.
const (
	MaxBytes = 64 << 20
	MaxDepth = 256
)

// Node is one instance of a Rojo source map, in Rojo's own format.
type Node struct {
	Name      string   `json:"name"`
	ClassName string   `json:"className"`
	FilePaths []string `json:"filePaths,omitempty"`
	Children  []*Node  `json:"children,omitempty"`
}

// Entry is one scripted instance of a map.
type Entry struct {
	Path      string // DataModel path as GetFullName prints it: ServerScriptService.Server.Main
	ClassName string
	File      string // its .luau/.lua file, slash-separated, relative to the map's folder
	Parent    string // its parent's DataModel path ("" for a top instance)
	// Names are the instance names from the top down (Path joins them with
	// dots, which names may hold too): what a lookup in Studio follows.
	Names []string
}

// Map indexes a source map both ways. A nil *Map maps nothing.
type Map struct {
	// Dir is the folder the map's file paths are relative to (the map's own
	// folder, where Rojo writes them relative to the project file's).
	Dir string
	// Prefix is put before every file shown to people (the map's folder
	// relative to the working directory, slash-separated, with a trailing
	// slash), or "" when that is the working directory.
	Prefix string
	// File is the map's file as Discover found it, and Remake the command
	// that makes it again (`rojo sourcemap …`), or "" when unknown: the
	// words of a stale map's report (NotInStudio).
	File   string
	Remake string
	byPath map[string]Entry
	byFile map[string]string
}

// Load reads and indexes the map at file.
func Load(file string) (*Map, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("source map %s: %w", file, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("source map %s: %w", file, err)
	}
	abs, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return nil, fmt.Errorf("source map %s: %w", file, err)
	}
	m, err := ParseMap(data, abs)
	if err != nil {
		return nil, fmt.Errorf("source map %s: %w", file, err)
	}
	return m, nil
}

// ParseMap indexes a map's bytes; dir is the folder its paths are relative to.
func ParseMap(data []byte, dir string) (*Map, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("larger than %d MiB; that is not a Rojo source map", MaxBytes>>20)
	}
	if err := checkDepth(data, MaxDepth); err != nil {
		return nil, err
	}
	var root Node
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("not a Rojo source map (want {name, className, filePaths?, children?}): %w", err)
	}
	if root.Name == "" || root.ClassName == "" {
		return nil, errors.New("not a Rojo source map: the root needs a name and a className (make it with `rojo sourcemap default.project.json --output sourcemap.json`)")
	}
	m := &Map{Dir: dir, byPath: map[string]Entry{}, byFile: map[string]string{}}
	// A place project's root is the DataModel, whose name GetFullName leaves
	// out (ServerScriptService.Main); a model project's root is an instance.
	if root.ClassName == "DataModel" {
		for _, c := range root.Children {
			m.index(c, "", nil)
		}
	} else {
		m.index(&root, "", nil)
	}
	return m, nil
}

func (m *Map) index(n *Node, parent string, names []string) {
	if n == nil {
		return
	}
	p := n.Name
	if parent != "" {
		p = parent + "." + n.Name
	}
	names = append(names, n.Name)
	if f := scriptFile(n.FilePaths); f != "" {
		if _, dup := m.byPath[p]; !dup {
			m.byPath[p] = Entry{Path: p, ClassName: n.ClassName, File: f, Parent: parent, Names: slices.Clip(slices.Clone(names))}
			m.byFile[f] = p
		}
	}
	for _, c := range n.Children {
		m.index(c, p, names)
	}
}

// Entries are the map's scripted instances, sorted by path.
func (m *Map) Entries() []Entry {
	if m == nil {
		return nil
	}
	out := make([]Entry, 0, len(m.byPath))
	for _, e := range m.byPath {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// scriptFile is the first .luau/.lua file of filePaths, slash-separated.
func scriptFile(paths []string) string {
	for _, f := range paths {
		if isScriptFile(f) {
			return filepath.ToSlash(filepath.Clean(f))
		}
	}
	return ""
}

func isScriptFile(f string) bool {
	return strings.HasSuffix(f, ".luau") || strings.HasSuffix(f, ".lua")
}

// checkDepth refuses JSON nested deeper than max (objects and arrays, outside
// strings) before it is parsed.
func checkDepth(data []byte, max int) error {
	depth := 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return fmt.Errorf("nested deeper than %d levels; that is not a Rojo source map", max)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// Len is the number of scripted instances in the map.
func (m *Map) Len() int {
	if m == nil {
		return 0
	}
	return len(m.byPath)
}

// Entry is the scripted instance at a DataModel path.
func (m *Map) Entry(path string) (Entry, bool) {
	if m == nil {
		return Entry{}, false
	}
	e, ok := m.byPath[path]
	return e, ok
}

// PathOf is the DataModel path of a file given relative to the map's folder
// (either separator), or "".
func (m *Map) PathOf(file string) string {
	if m == nil {
		return ""
	}
	return m.byFile[filepath.ToSlash(filepath.Clean(file))]
}

// EntryOfFile is the scripted instance a file on disk (any path) comes
// from.
func (m *Map) EntryOfFile(file string) (Entry, bool) {
	if m == nil {
		return Entry{}, false
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return Entry{}, false
	}
	rel, err := filepath.Rel(m.Dir, abs)
	if err != nil {
		return Entry{}, false
	}
	p := m.PathOf(rel)
	if p == "" {
		return Entry{}, false
	}
	return m.byPath[p], true
}

// Show is how a mapped file is shown to people: Prefix + file.
func (m *Map) Show(file string) string {
	if m == nil {
		return file
	}
	return m.Prefix + file
}

// SetWorkingDir sets Prefix so files show relative to wd.
func (m *Map) SetWorkingDir(wd string) {
	if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	rel, err := filepath.Rel(wd, m.Dir)
	if err != nil || rel == "." {
		m.Prefix = ""
		return
	}
	m.Prefix = filepath.ToSlash(rel) + "/"
}

// Missing lists the mapped files (relative to Dir) that do not exist on
// disk, sorted: a map that lists them is stale.
func (m *Map) Missing() []string {
	if m == nil {
		return nil
	}
	var out []string
	for f := range m.byFile {
		if _, err := os.Stat(filepath.Join(m.Dir, filepath.FromSlash(f))); err != nil {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}
