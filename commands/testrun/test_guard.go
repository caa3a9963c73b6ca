package testrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/studio-bridge/studio-bridge/project"
)

// specGuard keeps what `test` reads inside its scope: the project root
// (both as spelled and with its own symlinks resolved, so a root reached
// through a link, such as macOS's /tmp, still contains its files).
type specGuard struct {
	scope    SpecScope
	root     string // absolute
	realRoot string // root with symlinks resolved
}

func newSpecGuard(scope SpecScope) (*specGuard, error) {
	resolve := scope.Project
	if resolve == nil {
		resolve = func() (string, error) { return project.Root("", nil) }
	}
	root, err := resolve()
	if err != nil {
		return nil, err
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("project root %s: %w", root, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("project root %s: %w", root, err)
	}
	return &specGuard{scope: scope, root: root, realRoot: realRoot}, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (g *specGuard) inRoot(path string) bool {
	return within(path, g.root) || within(path, g.realRoot)
}

// abs is a named path made absolute: from the project root when confined
// (an agent's relative path means the project's), else from the working
// directory, as a shell user means it. Confined, it must be under the
// root.
func (g *specGuard) abs(p string) (string, error) {
	abs := p
	if !filepath.IsAbs(p) {
		if g.scope.Confine {
			abs = filepath.Join(g.root, p)
		} else {
			var err error
			if abs, err = filepath.Abs(p); err != nil {
				return "", fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	abs = filepath.Clean(abs)
	if g.scope.Confine && !g.inRoot(abs) {
		return "", fmt.Errorf("%s is outside the project root %s: over MCP and in the terminal, test reads specs only under it (set the root with %s, or run test from a shell)", p, g.root, project.EnvVar)
	}
	return abs, nil
}

// real resolves abs's symlinks. A path in the project root whose links
// lead out of it is refused, naming it: whatever it is called, it is not
// the project's file. A path outside the root (only a CLI user can name
// one) is the user's own choice.
func (g *specGuard) real(name, abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s does not exist", name)
	}
	if g.inRoot(abs) && !within(real, g.realRoot) {
		return "", fmt.Errorf("%s is a symlink that leads out of the project root %s; test refuses it (copy the file into the project instead)", name, g.root)
	}
	return real, nil
}

// read reads one file found by specTree: after resolving its links again
// (the tree may have changed since it was walked), only a regular file,
// checked before opening (a FIFO would block the open) and again on the
// open file (it may have been swapped in between).
func (g *specGuard) read(path string) ([]byte, error) {
	real, err := g.real(path, path)
	if err != nil {
		return nil, err
	}
	before, err := os.Lstat(real)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; test reads only regular files", path)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read only
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		return nil, fmt.Errorf("%s changed while test read it; run test again", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return data, nil
}
