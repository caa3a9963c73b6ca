package testrun

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Bounds on what `test` reads from disk before anything is sent.
const (
	// maxSpecFiles bounds the Luau files one run mounts.
	maxSpecFiles = 5000
	// maxSpecDepth bounds the folder depth below a path argument.
	maxSpecDepth = 32
)

// skippedDirs are folders never searched: version control, npm, and the
// Wally package folders, whose modules are already in the place.
var skippedDirs = map[string]bool{
	"node_modules": true, "Packages": true, "DevPackages": true, "ServerPackages": true,
}

// mountNode is one instance of the tree the runner mounts: a Folder, or a
// ModuleScript with its source (a folder with an init file is that script).
type mountNode struct {
	Name     string
	Kind     string // Folder or ModuleScript
	Source   string
	File     string // the file it came from, slash-separated, relative to the current folder
	abs      string // the file, absolute
	Spec     bool
	Children []*mountNode
}

// SpecScope is where `test` may read: the project root, and whether
// every named path must be under it. The MCP and terminal surfaces confine
// (their caller is an agent or a REPL line, not the user at a shell); the
// CLI does not, so a user may name any path. Everywhere, a symlink that
// leads out of the project root is refused and only regular files are read
// (issue #22 attack 2: symlinks named *.spec.lua pointing at ~/.ssh).
type SpecScope struct {
	// Project resolves the project root; nil resolves it as project.Root
	// does (STUDIO_BRIDGE_PROJECT, else the working directory).
	Project func() (string, error)
	// Confine: relative paths are taken from Root, and every path must be
	// under it.
	Confine bool
}

// specTree finds the specs under paths and builds the tree to mount: every
// Luau module file below each path (specs, and helpers they reach through
// script.Parent), with the folder structure relative to the paths' common
// parent, mapped as Rojo maps files (init.luau makes its folder a
// ModuleScript; name.luau a ModuleScript "name"; a.spec.luau a ModuleScript
// "a.spec", as TestEZ wants). .server/.client scripts are left out (a
// mounted Script would run). A spec file named alone is mounted with its
// whole folder, so its requires of neighbours (script.Parent.X) work, and
// only it runs. It returns the top nodes, the number of specs that run and
// the bytes of source.
func specTree(scope SpecScope, paths []string) ([]*mountNode, int, int, error) {
	g, err := newSpecGuard(scope)
	if err != nil {
		return nil, 0, 0, err
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var files []string
	seen := map[string]bool{}
	// run says which spec files run: those named and those under a folder
	// named. A spec named alone brings its whole folder (its neighbours,
	// which it reaches through script.Parent) without running the other
	// specs there.
	run := map[string]bool{}
	walk := func(abs, p string, runs bool) error {
		return filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(abs, path)
			if d.IsDir() {
				if path != abs && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()]) {
					return filepath.SkipDir
				}
				if strings.Count(rel, string(filepath.Separator)) >= maxSpecDepth {
					return fmt.Errorf("%s: folders nest deeper than %d levels", path, maxSpecDepth)
				}
				return nil
			}
			if !isModuleFile(d.Name()) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// a linked module is read only if it stays in the project
				// root and is a regular file (a linked folder is not entered)
				real, err := g.real(path, path)
				if err != nil {
					return err
				}
				if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
					return nil
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			if runs {
				run[path] = true
			}
			if !seen[path] {
				seen[path] = true
				files = append(files, path)
				if len(files) > maxSpecFiles {
					return fmt.Errorf("more than %d Luau files under %s; name the folders that hold the specs", maxSpecFiles, p)
				}
			}
			return nil
		})
	}
	for _, p := range paths {
		abs, err := g.abs(p)
		if err != nil {
			return nil, 0, 0, err
		}
		real, err := g.real(p, abs)
		if err != nil {
			return nil, 0, 0, err
		}
		st, err := os.Stat(real)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s does not exist", p)
		}
		if !st.IsDir() {
			if !IsSpecFile(filepath.Base(abs)) {
				return nil, 0, 0, fmt.Errorf("%s is not a spec (*.spec.luau or *.spec.lua)", p)
			}
			if !st.Mode().IsRegular() {
				return nil, 0, 0, fmt.Errorf("%s is not a regular file; test reads only regular files", p)
			}
			run[abs] = true
			if err := walk(filepath.Dir(abs), p, false); err != nil {
				return nil, 0, 0, err
			}
			continue
		}
		if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			abs = real // a linked folder in the root: walk where it leads
		}
		if err := walk(abs, p, true); err != nil {
			return nil, 0, 0, err
		}
	}
	base := commonDir(files)
	cwd, _ := os.Getwd()
	root := &mountNode{Kind: "Folder"}
	specs, size := 0, 0
	sort.Strings(files)
	for _, f := range files {
		data, err := g.read(f)
		if err != nil {
			return nil, 0, 0, err
		}
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return nil, 0, 0, fmt.Errorf("%s is not UTF-8 text", f)
		}
		size += len(data)
		inMount, _ := filepath.Rel(base, f)
		parts := strings.Split(filepath.ToSlash(inMount), "/")
		// files are named as the user reaches them: relative to the
		// current folder when below it (CI annotations want that)
		rel := f
		if r, err := filepath.Rel(cwd, f); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
		rel = filepath.ToSlash(rel)
		dir := root
		for _, part := range parts[:len(parts)-1] {
			dir = dir.child(part)
		}
		name, init := moduleName(parts[len(parts)-1])
		if init {
			if dir == root {
				// an init file at the top names no folder: mount it as a module
				name = "init"
			} else {
				if dir.Kind == "ModuleScript" {
					return nil, 0, 0, fmt.Errorf("%s: its folder has two init files", f)
				}
				dir.Kind, dir.Source, dir.File = "ModuleScript", string(data), rel
				continue
			}
		}
		for _, c := range dir.Children {
			if c.Name == name && c.Kind == "ModuleScript" && c.File != "" {
				return nil, 0, 0, fmt.Errorf("%s and %s would be the same ModuleScript %q; rename one", c.File, rel, name)
			}
		}
		n := dir.child(name)
		if n.File != "" || len(n.Children) > 0 && n.Kind == "ModuleScript" {
			return nil, 0, 0, fmt.Errorf("%s collides with another module named %q", rel, name)
		}
		n.Kind, n.Source, n.File, n.abs, n.Spec = "ModuleScript", string(data), rel, f, IsSpecFile(parts[len(parts)-1]) && run[f]
		if n.Spec {
			specs++
		}
	}
	return root.Children, specs, size, nil
}

func (n *mountNode) child(name string) *mountNode {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	c := &mountNode{Name: name, Kind: "Folder"}
	n.Children = append(n.Children, c)
	return c
}

// isModuleFile: a Luau module Rojo would map to a ModuleScript.
func isModuleFile(name string) bool {
	if !strings.HasSuffix(name, ".luau") && !strings.HasSuffix(name, ".lua") {
		return false
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(name, ".luau"), ".lua")
	return !strings.HasSuffix(stem, ".server") && !strings.HasSuffix(stem, ".client")
}

func IsSpecFile(name string) bool {
	return strings.HasSuffix(name, ".spec.luau") || strings.HasSuffix(name, ".spec.lua")
}

// moduleName is a module file's instance name, and whether it is its
// folder's init file.
func moduleName(file string) (string, bool) {
	stem := strings.TrimSuffix(strings.TrimSuffix(file, ".luau"), ".lua")
	return stem, stem == "init"
}

// commonDir is the deepest folder holding every file.
func commonDir(files []string) string {
	if len(files) == 0 {
		return "."
	}
	dir := filepath.Dir(files[0])
	for _, f := range files[1:] {
		for !strings.HasPrefix(f, dir+string(filepath.Separator)) {
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return dir
}

// LuauString writes s as a Luau string literal: quotes, backslashes and
// control bytes escaped, everything else as it is (sources are UTF-8).
func LuauString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(b, `\%03d`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// names adds the full names this node and its descendants get when
// mounted under parent, for the ModuleScripts that came from files.
func (n *mountNode) names(parent string, out map[string]string) {
	full := parent + "." + n.Name
	if n.File != "" {
		out[full] = n.File
	}
	for _, c := range n.Children {
		c.names(full, out)
	}
}

func (n *mountNode) luau(b *strings.Builder) {
	b.WriteString("{name=")
	LuauString(b, n.Name)
	b.WriteString(",kind=")
	LuauString(b, n.Kind)
	if n.Kind == "ModuleScript" {
		b.WriteString(",source=")
		LuauString(b, n.Source)
		b.WriteString(",file=")
		LuauString(b, n.File)
		if n.Spec {
			b.WriteString(",spec=true")
		}
	}
	b.WriteString(",children={")
	for i, c := range n.Children {
		if i > 0 {
			b.WriteByte(',')
		}
		c.luau(b)
	}
	b.WriteString("}}")
}

// ErrNoSpecs: nothing to run.
var ErrNoSpecs = errors.New("no specs found")
