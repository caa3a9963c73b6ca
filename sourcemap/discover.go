package sourcemap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// EnvVar names the environment variable that points at a source map when
// no --sourcemap flag is given.
const EnvVar = "STUDIO_BRIDGE_SOURCEMAP"

// FileName is the map looked for in the project root.
const FileName = "sourcemap.json"

// Bounds on the staleness check: a project file is small, and the walk of
// the folders it maps stops after this many entries (then the map is
// trusted as it is).
const (
	maxProjectBytes = 4 << 20
	maxWalkEntries  = 200_000
	rojoTimeout     = 2 * time.Minute
)

// Options say where to look for a map.
type Options struct {
	Flag   string              // --sourcemap FILE
	Getenv func(string) string // nil: os.Getenv
	Root   string              // the project root (package project)
	// Rojo (--rojo) regenerates a missing or stale map with the rojo on
	// PATH.
	Rojo bool
	// LookPath finds rojo (nil: exec.LookPath); tests replace it.
	LookPath func(string) (string, error)
	// ShowFrom is the folder mapped files are shown relative to (Map.Prefix);
	// "" is the working directory. MCP shows them from the client's root.
	ShowFrom string
}

// Found is what Discover found.
type Found struct {
	File string // the map's file; "" when there is none
	Map  *Map   // nil when there is none
	// Hint, when not "", is one line for people: how to make or refresh
	// the map, or that it was regenerated.
	Hint string
	// Missing lists mapped files not on disk (a stale map, reported).
	Missing []string
}

// Discover finds, checks and loads the source map. No map is no error
// (Found.Map is nil) unless one was named (--sourcemap, EnvVar) and cannot be
// read. A Rojo project (a *.project.json in the root) with no map, or with
// one older than the folders its project maps, gets a Hint; with Rojo set
// and rojo on PATH the map is regenerated first.
func Discover(ctx context.Context, o Options) (*Found, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	file, from := o.Flag, "--sourcemap"
	if file == "" {
		file, from = getenv(EnvVar), EnvVar
	}
	named := file != ""
	if !named {
		file = filepath.Join(o.Root, FileName)
	}
	found := &Found{}
	project := projectFile(o.Root)
	_, statErr := os.Stat(file)
	switch {
	case statErr != nil && named && !o.Rojo:
		return nil, fmt.Errorf("source map %s (from %s): %w", file, from, statErr)
	case statErr != nil && project == "":
		if named {
			return nil, fmt.Errorf("source map %s (from %s): %w; and %s has no *.project.json to make one from", file, from, statErr, o.Root)
		}
		return found, nil // not a Rojo project: nothing to map
	case statErr != nil:
		if !o.Rojo {
			found.Hint = fmt.Sprintf("%s has %s but no source map, so locations stay DataModel paths; make one with `%s` (or `%s --watch` to keep it fresh), or pass --rojo", o.Root, filepath.Base(project), rojoCommand(project, file, o.Root), rojoCommand(project, file, o.Root))
			return found, nil
		}
		hint, err := regenerate(ctx, o, project, file)
		found.Hint = hint
		if err != nil {
			return found, nil // no map to load: locations stay DataModel paths
		}
	case project != "":
		if stale, why := isStale(file, project); stale {
			if o.Rojo {
				if hint, err := regenerate(ctx, o, project, file); err != nil {
					found.Hint = hint + "; using the old map, which may be stale"
				} else {
					found.Hint = hint
				}
			} else {
				found.Hint = fmt.Sprintf("source map %s is older than %s, so it may be stale; refresh it with `%s` (or `%s --watch`), or pass --rojo", file, why, rojoCommand(project, file, o.Root), rojoCommand(project, file, o.Root))
			}
		}
	}
	m, err := Load(file)
	if err != nil {
		return nil, err
	}
	if o.ShowFrom != "" {
		m.SetWorkingDir(o.ShowFrom)
	} else if wd, err := os.Getwd(); err == nil {
		m.SetWorkingDir(wd)
	}
	found.File, found.Map = file, m
	m.File = file
	if project != "" {
		m.Remake = rojoCommand(project, file, o.Root)
	}
	found.Missing = m.Missing()
	return found, nil
}

// MissingNote says which mapped files are missing on disk, for people, or "".
func (f *Found) MissingNote() string {
	if f == nil || len(f.Missing) == 0 {
		return ""
	}
	list := f.Missing
	more := ""
	if len(list) > 5 {
		more = fmt.Sprintf(" and %d more", len(list)-5)
		list = list[:5]
	}
	return fmt.Sprintf("source map %s is stale: %d mapped file(s) are missing on disk (%s%s); those instances stay DataModel paths until it is regenerated", f.File, len(f.Missing), strings.Join(list, ", "), more)
}

// Forget drops the entries whose files are missing, so a stale map is not
// trusted for them.
func (f *Found) Forget() {
	if f == nil || f.Map == nil {
		return
	}
	for _, file := range f.Missing {
		if p, ok := f.Map.byFile[file]; ok {
			delete(f.Map.byPath, p)
			delete(f.Map.byFile, file)
		}
	}
}

// projectFile is the root's Rojo project: default.project.json, else the
// first *.project.json by name, else "".
func projectFile(root string) string {
	if root == "" {
		return ""
	}
	def := filepath.Join(root, "default.project.json")
	if st, err := os.Stat(def); err == nil && !st.IsDir() {
		return def
	}
	matches, _ := filepath.Glob(filepath.Join(root, "*.project.json"))
	slices.Sort(matches)
	if len(matches) > 0 {
		return matches[0]
	}
	return ""
}

// rojoCommand is the command that writes the map at file from project,
// with paths relative to root where they are inside it.
func rojoCommand(project, file, root string) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	return fmt.Sprintf("rojo sourcemap %s --output %s", rel(project), rel(file))
}

// isStale says whether the map is older than the project file or any
// folder the project maps. A map changes only when instances come and go:
// files added, removed or renamed, which changes their folder's time; an
// edit inside a file changes no map, so file times are not compared.
func isStale(file, project string) (bool, string) {
	st, err := os.Stat(file)
	if err != nil {
		return false, ""
	}
	made := st.ModTime()
	if pst, err := os.Stat(project); err == nil && pst.ModTime().After(made) {
		return true, filepath.Base(project)
	}
	data, err := readBounded(project, maxProjectBytes)
	if err != nil {
		return false, ""
	}
	var tree struct {
		Tree json.RawMessage `json:"tree"`
	}
	if json.Unmarshal(data, &tree) != nil {
		return false, ""
	}
	base := filepath.Dir(project)
	seen := 0
	for _, p := range projectPaths(tree.Tree, nil) {
		target := filepath.Join(base, filepath.FromSlash(p))
		newer := ""
		_ = filepath.WalkDir(target, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			seen++
			if seen > maxWalkEntries {
				return filepath.SkipAll
			}
			if !d.IsDir() && path != target {
				return nil
			}
			if info, err := d.Info(); err == nil && info.ModTime().After(made) {
				newer = path
				return filepath.SkipAll
			}
			return nil
		})
		if newer != "" {
			rel, err := filepath.Rel(base, newer)
			if err != nil {
				rel = newer
			}
			return true, filepath.ToSlash(rel)
		}
	}
	return false, ""
}

// projectPaths collects every "$path" of a project tree.
func projectPaths(raw json.RawMessage, out []string) []string {
	var node map[string]json.RawMessage
	if json.Unmarshal(raw, &node) != nil {
		return out
	}
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := node[k]
		if k == "$path" {
			var p string
			if json.Unmarshal(v, &p) == nil && p != "" {
				out = append(out, p)
			} else {
				var obj struct {
					Optional string `json:"optional"`
				}
				if json.Unmarshal(v, &obj) == nil && obj.Optional != "" {
					out = append(out, obj.Optional)
				}
			}
			continue
		}
		if !strings.HasPrefix(k, "$") {
			out = projectPaths(v, out)
		}
	}
	return out
}

func readBounded(file string, max int64) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", file, max)
	}
	return os.ReadFile(file)
}

// regenerate runs `rojo sourcemap PROJECT --output FILE` in the project's
// folder. It answers the line to show either way.
func regenerate(ctx context.Context, o Options, project, file string) (string, error) {
	look := o.LookPath
	if look == nil {
		look = exec.LookPath
	}
	cmdline := rojoCommand(project, file, o.Root)
	rojo, err := look("rojo")
	if err != nil {
		return fmt.Sprintf("--rojo: rojo is not on PATH, so the source map was not made; install Rojo or run `%s` yourself", cmdline), err
	}
	ctx, cancel := context.WithTimeout(ctx, rojoTimeout)
	defer cancel()
	absFile, err := filepath.Abs(file)
	if err != nil {
		return fmt.Sprintf("--rojo: %v", err), err
	}
	cmd := exec.CommandContext(ctx, rojo, "sourcemap", filepath.Base(project), "--output", absFile)
	cmd.Dir = filepath.Dir(project)
	var stderr bytes.Buffer
	cmd.Stderr = &limitWriter{w: &stderr, n: 4096}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Sprintf("--rojo: `%s` failed: %s", cmdline, msg), errors.New(msg)
	}
	return fmt.Sprintf("source map regenerated: %s", cmdline), nil
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		if len(p) > room {
			l.w.Write(p[:room])
		} else {
			l.w.Write(p)
		}
	}
	return len(p), nil
}
