package sourcemap

import (
	"fmt"
	"sort"
	"strings"
)

// The other half of a stale map: an instance the map lists that Studio does
// not have (a file added since Rojo last synced, or a map made from another
// project). Nothing is asked of Studio for it: a command whose request named
// a mapped instance, and whose answer says Studio has no such instance
// (script read or edit, test of a synced spec or of a mapped --root), puts
// NotInStudio's sentence into its error, so the check costs nothing when
// the map is right.

// Listed is the scripted instance the map lists at path, or else the first
// (by path) under it, when path is a folder of mapped scripts; ok is false
// when the map lists nothing there. It walks the whole index, so it is for
// error paths, not for every location.
func (m *Map) Listed(path string) (e Entry, ok bool) {
	if m == nil || path == "" {
		return Entry{}, false
	}
	path = strings.TrimPrefix(path, "game.")
	if e, ok := m.byPath[path]; ok {
		return e, true
	}
	prefix := path + "."
	var under []string
	for p := range m.byPath {
		if strings.HasPrefix(p, prefix) {
			under = append(under, p)
		}
	}
	if len(under) == 0 {
		return Entry{}, false
	}
	sort.Strings(under)
	return m.byPath[under[0]], true
}

// NotInStudio is the sentence for people when Studio has no instance at
// path though the map lists it (or scripts under it): which file, which
// map, and how to make the two agree. "" when the map lists nothing there.
func (m *Map) NotInStudio(path string) string {
	e, ok := m.Listed(path)
	if !ok {
		return ""
	}
	path = strings.TrimPrefix(path, "game.")
	what := fmt.Sprintf("%s (from %s)", path, m.Show(e.File))
	if e.Path != path {
		what = fmt.Sprintf("%s (with %s from %s)", path, e.Path, m.Show(e.File))
	}
	mapFile := m.File
	if mapFile == "" {
		mapFile = FileName
	}
	remake := m.Remake
	if remake == "" {
		remake = "rojo sourcemap default.project.json --output " + FileName
	}
	return fmt.Sprintf("the source map %s lists %s, but Studio has no such instance: the map is stale or Rojo has not synced the project; sync it (rojo serve) or regenerate the map with `%s`",
		mapFile, what, remake)
}
