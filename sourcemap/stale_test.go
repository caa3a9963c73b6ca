package sourcemap

import (
	"strings"
	"testing"
)

// Listed finds a mapped script, or a script under a mapped folder, and
// NotInStudio names the instance, its file, the map and how to remake it.
func TestNotInStudio(t *testing.T) {
	m := loadFixture(t)
	m.Prefix = ""
	for _, tc := range []struct {
		path, entry string // entry "" is nothing listed
	}{
		{"ReplicatedStorage.Shared.Inner", "ReplicatedStorage.Shared.Inner"},
		{"game.ReplicatedStorage.Shared.Inner", "ReplicatedStorage.Shared.Inner"},
		{"ReplicatedStorage.Shared.util", "ReplicatedStorage.Shared.util.Strings"}, // first by path under the folder
		{"ReplicatedStorage.Shared", "ReplicatedStorage.Shared.Inner"},
		{"ReplicatedStorage.Shared.Nope", ""},
		{"ReplicatedStorage.Shar", ""}, // a prefix of a name is not a folder
		{"Workspace", ""},
		{"", ""},
	} {
		e, ok := m.Listed(tc.path)
		if ok != (tc.entry != "") || e.Path != tc.entry {
			t.Errorf("Listed(%q) = %q, %v; want %q", tc.path, e.Path, ok, tc.entry)
		}
		note := m.NotInStudio(tc.path)
		if (note != "") != ok {
			t.Errorf("NotInStudio(%q) = %q", tc.path, note)
		}
	}

	note := m.NotInStudio("ReplicatedStorage.Shared.Inner")
	for _, want := range []string{"sourcemap.json lists ReplicatedStorage.Shared.Inner (from src/shared/Inner.luau)", "Studio has no such instance", "`rojo sourcemap default.project.json --output sourcemap.json`", "rojo serve"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	m.File, m.Remake = "proj/sourcemap.json", "rojo sourcemap game.project.json --output sourcemap.json"
	note = m.NotInStudio("ReplicatedStorage.Shared.util")
	for _, want := range []string{"proj/sourcemap.json lists ReplicatedStorage.Shared.util (with ReplicatedStorage.Shared.util.Strings from src/shared/util/Strings.luau)", "`rojo sourcemap game.project.json --output sourcemap.json`"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	var none *Map
	if _, ok := none.Listed("A"); ok || none.NotInStudio("A") != "" {
		t.Error("a nil map lists something")
	}
}

// Entries keep each instance's names from the top, so a name with a dot
// (Strings.spec) stays one name; they come sorted by path.
func TestEntriesNames(t *testing.T) {
	es := loadFixture(t).Entries()
	if len(es) != 7 {
		t.Fatalf("%d entries", len(es))
	}
	for i, e := range es {
		if i > 0 && es[i-1].Path >= e.Path {
			t.Errorf("entries out of order at %s", e.Path)
		}
		if strings.Join(e.Names, ".") != e.Path {
			t.Errorf("%s: names %q", e.Path, e.Names)
		}
		if e.Path == "ReplicatedStorage.Shared.util.Strings.spec" && (len(e.Names) != 4 || e.Names[3] != "Strings.spec") {
			t.Errorf("%s: names %q", e.Path, e.Names)
		}
	}
	var none *Map
	if none.Entries() != nil {
		t.Error("a nil map has entries")
	}
}
