package testrun

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// Following a spec's requires through the source map, for --changed-since.
// A require is resolved when its argument is a chain the map can follow:
// script, game (game:GetService("X"), game.X), workspace, or a local alias
// of one of them (local Shared = ReplicatedStorage.Shared), then .Name,
// .Parent, ["Name"], :WaitForChild("Name"[, timeout]) and
// :FindFirstChild("Name"), ending at a scripted instance the map has. Any
// other require (a string path, a computed name, a module the map does not
// have) cannot be resolved, and then the spec runs.

// maxModuleBytes bounds a module read to follow its requires (Studio takes
// no script Source over 200,000 characters; Rojo's files are the same).
const maxModuleBytes = 4 << 20

// Changes says which specs a set of changed files concerns.
type Changes struct {
	m       *sourcemap.Map
	changed map[string]bool        // absolute, cleaned
	deps    map[string]*moduleDeps // by file
	read    func(string) ([]byte, error)
	// all: a Rojo project file changed, so an unchanged file may now be
	// what a require reaches, or the Wally lock file did (new package
	// versions, whose files git ignores): every spec runs. (The source map itself is
	// not looked at: it follows the project file and the files, and it is
	// often untracked, so git would list it as new on every run.)
	all bool
}

// moduleDeps is what one module requires: instance paths, and whether some
// require could not be resolved.
type moduleDeps struct {
	paths      []string
	unresolved bool
}

// NewChanges is the changes of changed (absolute paths, as ChangedFiles
// gives) for specs resolved through m (nil: no require resolves).
func NewChanges(m *sourcemap.Map, changed map[string]bool) *Changes {
	c := &Changes{m: m, changed: changed, deps: map[string]*moduleDeps{}, read: readModule}
	for f := range changed {
		if base := filepath.Base(f); strings.HasSuffix(base, ".project.json") || base == "wally.lock" {
			c.all = true
		}
	}
	return c
}

func readModule(file string) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxModuleBytes {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(file)
}

// mapFile is the absolute file of a mapped instance, or "".
func (c *Changes) mapFile(path string) string {
	e, ok := c.m.Entry(path)
	if !ok {
		return ""
	}
	return filepath.Join(c.m.Dir, filepath.FromSlash(e.File))
}

// Affected says whether a spec must run: its file changed, a module it
// requires (directly or not) changed, or a require on the way cannot be
// resolved; or a Rojo project file (the mapping itself may be new) or
// wally.lock (the packages) changed. path is the spec's instance path ("" when the map does not
// have it: then only a spec that requires nothing resolves), file its
// file on disk.
func (c *Changes) Affected(path, file string) bool {
	if c.all {
		return true
	}
	type node struct{ path, file string }
	seen := map[string]bool{}
	stack := []node{{path, file}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		abs, err := filepath.Abs(n.file)
		if err != nil {
			return true
		}
		if seen[abs] {
			continue
		}
		seen[abs] = true
		// git names files by their real path (macOS's /tmp is /private/tmp)
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			real = abs // gone from disk: git lists it if it was deleted
		}
		if c.changed[abs] || c.changed[real] {
			return true
		}
		d := c.depsOf(n.path, abs)
		if d.unresolved {
			return true
		}
		for _, p := range d.paths {
			f := c.mapFile(p)
			if f == "" {
				return true
			}
			stack = append(stack, node{p, f})
		}
	}
	return false
}

// SpecsUnder lists the specs the map has under root (root itself
// included): ModuleScripts named *.spec, as the runner finds them, with
// their files.
func (c *Changes) SpecsUnder(root string) []sourcemap.Entry {
	var out []sourcemap.Entry
	for _, e := range c.m.Entries() {
		if (e.Path == root || strings.HasPrefix(e.Path, root+".")) && e.ClassName == "ModuleScript" && strings.HasSuffix(e.Path, ".spec") {
			out = append(out, e)
		}
	}
	return out
}

// Skipped lists the specs under root that need not run (--root, a synced
// spec's folder and --cloud run the place's specs): their instance paths,
// as the runner names them, and how many specs the map has there.
func (c *Changes) Skipped(root string) (skip []string, known int) {
	for _, e := range c.SpecsUnder(root) {
		known++
		if !c.Affected(e.Path, c.mapFile(e.Path)) {
			skip = append(skip, e.Path)
		}
	}
	return skip, known
}

// SkipFile says whether the spec file (from disk) need not run.
func (c *Changes) SkipFile(file string) bool {
	path := ""
	if e, ok := c.m.EntryOfFile(file); ok {
		path = e.Path
	}
	return !c.Affected(path, file)
}

func (c *Changes) depsOf(path, file string) *moduleDeps {
	if d, ok := c.deps[file]; ok {
		return d
	}
	d := &moduleDeps{}
	c.deps[file] = d
	src, err := c.read(file)
	if err != nil {
		d.unresolved = true
		return d
	}
	r := resolver{m: c.m, script: path, aliases: map[string][]token{}}
	d.paths, d.unresolved = r.requires(scan(string(src)))
	return d
}

// resolver resolves one module's require chains to instance paths.
type resolver struct {
	m       *sourcemap.Map
	script  string // the module's own path; "" when unknown
	aliases map[string][]token
	// ambiguous names are assigned more than once: a chain through them
	// does not resolve
	ambiguous map[string]bool
}

// requires collects the module's local aliases, then resolves every
// require call.
func (r *resolver) requires(toks []token) (paths []string, unresolved bool) {
	r.ambiguous = map[string]bool{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || i+2 >= len(toks) || toks[i+1].text != "=" {
			continue
		}
		if i > 0 && (toks[i-1].text == "." || toks[i-1].text == ":") {
			continue // a field, not a variable
		}
		local := i > 0 && toks[i-1].text == "local"
		if _, dup := r.aliases[t.text]; dup || !local {
			r.ambiguous[t.text] = true
			continue
		}
		end := chainEnd(toks, i+2)
		if end < len(toks) && (toks[end].kind == tPunct && toks[end].text != ";" || toks[end].text == "or" || toks[end].text == "and") {
			// more than a chain (a or b, a .. b, a call): not an alias
			r.ambiguous[t.text] = true
			continue
		}
		r.aliases[t.text] = toks[i+2 : end]
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || t.text != "require" || (i > 0 && (toks[i-1].text == "." || toks[i-1].text == ":" || toks[i-1].text == "function" || toks[i-1].text == "local")) {
			continue
		}
		if i+1 >= len(toks) || toks[i+1].text != "(" {
			unresolved = true // require passed around, or called without parentheses
			continue
		}
		end := chainEnd(toks, i+2)
		if end >= len(toks) || toks[end].text != ")" {
			unresolved = true
			continue
		}
		p, ok := r.resolve(toks[i+2:end], 0)
		if !ok {
			unresolved = true
			continue
		}
		paths = append(paths, p)
	}
	return paths, unresolved
}

// chainEnd is the index just past the chain starting at i: an identifier
// then suffixes (.Name, ["Name"], :Method("Name", …)).
func chainEnd(toks []token, i int) int {
	if i >= len(toks) || toks[i].kind != tIdent {
		return i
	}
	i++
	for i < len(toks) {
		switch toks[i].text {
		case ".":
			if i+1 < len(toks) && toks[i+1].kind == tIdent {
				i += 2
				continue
			}
		case "[":
			if i+2 < len(toks) && toks[i+1].kind == tString && toks[i+2].text == "]" {
				i += 3
				continue
			}
		case ":":
			if i+3 < len(toks) && toks[i+1].kind == tIdent && toks[i+2].text == "(" {
				j := i + 3
				for j < len(toks) && toks[j].text != ")" && (toks[j].kind == tString || toks[j].kind == tNumber || toks[j].text == ",") {
					j++
				}
				if j < len(toks) && toks[j].text == ")" {
					i = j + 1
					continue
				}
			}
		}
		return i
	}
	return i
}

// resolve follows a chain to an instance path.
func (r *resolver) resolve(chain []token, depth int) (string, bool) {
	if len(chain) == 0 || chain[0].kind != tIdent || depth > 8 {
		return "", false
	}
	var at string
	switch base := chain[0].text; {
	case base == "script":
		if r.script == "" {
			return "", false
		}
		at = r.script
	case base == "game":
		at = ""
	case base == "workspace":
		at = "Workspace"
	case r.ambiguous[base]:
		return "", false
	default:
		alias, ok := r.aliases[base]
		if !ok {
			return "", false
		}
		var p string
		if p, ok = r.resolve(alias, depth+1); !ok {
			return "", false
		}
		at = p
	}
	for i := 1; i < len(chain); {
		switch chain[i].text {
		case ".":
			name := chain[i+1].text
			if name == "Parent" {
				var ok bool
				if at, ok = r.parent(at); !ok {
					return "", false
				}
			} else {
				at = child(at, name)
			}
			i += 2
		case "[":
			at = child(at, chain[i+1].text)
			i += 3
		case ":":
			method := chain[i+1].text
			j := i + 3
			if j >= len(chain) || chain[j].kind != tString {
				return "", false
			}
			switch {
			case method == "GetService" && at == "":
			case method == "WaitForChild" || method == "FindFirstChild":
			default:
				return "", false
			}
			at = child(at, chain[j].text)
			for i = j; chain[i].text != ")"; i++ {
			}
			i++
		default:
			return "", false
		}
	}
	return at, at != ""
}

func child(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// parent is the parent of the instance at path: the map's, where it has
// the instance, else the path without its last name ("" is the DataModel,
// whose parent does not resolve).
func (r *resolver) parent(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	if e, ok := r.m.Entry(path); ok {
		return e.Parent, true
	}
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", true
	}
	return path[:i], true
}
