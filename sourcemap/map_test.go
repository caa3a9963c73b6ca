package sourcemap

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixture is the Rojo project the emulator tests run against; its
// sourcemap.json was made by the pinned rojo (test/emulator/package.json).
var fixture = filepath.Join("..", "test", "emulator", "testdata", "rojo")

func loadFixture(t *testing.T) *Map {
	t.Helper()
	m, err := Load(filepath.Join(fixture, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadFixture(t *testing.T) {
	m := loadFixture(t)
	want := map[string]string{
		"ReplicatedStorage.Shared.Inner":             "src/shared/Inner.luau",
		"ReplicatedStorage.Shared.Outer":             "src/shared/Outer.luau",
		"ReplicatedStorage.Shared.util.Strings":      "src/shared/util/Strings.luau",
		"ReplicatedStorage.Shared.util.Strings.spec": "src/shared/util/Strings.spec.luau",
		"ReplicatedStorage.Shared.util.Words.spec":   "src/shared/util/Words.spec.luau",
		"ServerScriptService.Server.Main":            "src/server/Main.server.luau", // not Main.meta.json
		"StarterPlayer.StarterPlayerScripts.Client":  "src/client/init.client.luau",
	}
	if m.Len() != len(want) {
		t.Errorf("Len = %d, want %d (Settings.model.json is no script)", m.Len(), len(want))
	}
	for path, file := range want {
		e, ok := m.Entry(path)
		if !ok || e.File != file {
			t.Errorf("Entry(%s) = %+v, %v; want file %s", path, e, ok, file)
		}
		if got := m.PathOf(filepath.FromSlash(file)); got != path {
			t.Errorf("PathOf(%s) = %q, want %s", file, got, path)
		}
	}
	if _, ok := m.Entry("ReplicatedStorage.Shared.Settings"); ok {
		t.Error("a .model.json instance was indexed as a script")
	}
	if missing := m.Missing(); len(missing) != 0 {
		t.Errorf("Missing = %v on the fixture", missing)
	}
}

func TestParseMapRefuses(t *testing.T) {
	deep := strings.Repeat(`{"name":"a","className":"Folder","children":[`, MaxDepth) + strings.Repeat("]}", MaxDepth)
	tests := []struct{ name, data, want string }{
		{"not json", "nope", "not a Rojo source map"},
		{"no name", `{"className":"DataModel"}`, "needs a name and a className"},
		{"too deep", deep, "nested deeper than"},
		{"wrong types", `{"name":1,"className":"X"}`, "not a Rojo source map"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMap([]byte(tc.data), ".")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := ParseMap(make([]byte, MaxBytes+1), "."); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized map: err %v", err)
	}
}

func TestModelProjectRootKeepsItsName(t *testing.T) {
	m, err := ParseMap([]byte(`{"name":"Lib","className":"ModuleScript","filePaths":["src/init.luau"],"children":[{"name":"A","className":"ModuleScript","filePaths":["src/A.lua","src/A.meta.json"]}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := m.Entry("Lib"); e.File != "src/init.luau" {
		t.Errorf("Lib = %+v", e)
	}
	if e, _ := m.Entry("Lib.A"); e.File != "src/A.lua" {
		t.Errorf("Lib.A = %+v", e)
	}
}

func TestLocateAndRewrite(t *testing.T) {
	m := loadFixture(t)
	tests := []struct {
		name, line, rewritten string
		locs                  []Location
	}{
		{"error prefix", "ReplicatedStorage.Shared.Inner:5: attempt to index nil with 'field'",
			"src/shared/Inner.luau:5: attempt to index nil with 'field'",
			[]Location{{Path: "ReplicatedStorage.Shared.Inner", Line: 5, File: "src/shared/Inner.luau"}}},
		{"traceback frame", "ReplicatedStorage.Shared.Outer:7 function run",
			"src/shared/Outer.luau:7 function run",
			[]Location{{Path: "ReplicatedStorage.Shared.Outer", Line: 7, File: "src/shared/Outer.luau"}}},
		{"studio stack line keeps the DataModel path after the file", "Script 'ServerScriptService.Server.Main', Line 5 - Studio",
			"src/server/Main.server.luau:5 (ServerScriptService.Server.Main) - Studio",
			[]Location{{Path: "ServerScriptService.Server.Main", Line: 5, File: "src/server/Main.server.luau"}}},
		{"exec file chunk is its own file", "scripts/nested.luau:2",
			"scripts/nested.luau:2",
			[]Location{{Path: "scripts/nested.luau", Line: 2, File: "scripts/nested.luau"}}},
		{"unmapped instance stays a DataModel path", "Workspace.Part.Script:3: boom",
			"Workspace.Part.Script:3: boom",
			[]Location{{Path: "Workspace.Part.Script", Line: 3}}},
		{"several on one line", "Requested module experienced an error while loading: ReplicatedStorage.Shared.Outer:2: ReplicatedStorage.Shared.Inner:5: x",
			"Requested module experienced an error while loading: src/shared/Outer.luau:2: src/shared/Inner.luau:5: x",
			[]Location{{Path: "ReplicatedStorage.Shared.Outer", Line: 2, File: "src/shared/Outer.luau"}, {Path: "ReplicatedStorage.Shared.Inner", Line: 5, File: "src/shared/Inner.luau"}}},
		{"no location", "hello world", "hello world", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.Locate(tc.line); !reflect.DeepEqual(got, tc.locs) {
				t.Errorf("Locate\n got %+v\nwant %+v", got, tc.locs)
			}
			if got := m.Rewrite(tc.line); got != tc.rewritten {
				t.Errorf("Rewrite\n got %q\nwant %q", got, tc.rewritten)
			}
		})
	}
	text := "ReplicatedStorage.Shared.Inner:5: x\nStack Begin\nScript 'ReplicatedStorage.Shared.Inner', Line 5\n"
	want := "src/shared/Inner.luau:5: x\nStack Begin\nsrc/shared/Inner.luau:5 (ReplicatedStorage.Shared.Inner)\n"
	if got := m.RewriteText(text); got != want {
		t.Errorf("RewriteText\n got %q\nwant %q", got, want)
	}
	m.SetWorkingDir(filepath.Join(fixture, ".."))
	if got := m.Rewrite("ReplicatedStorage.Shared.Inner:5: x"); got != "rojo/src/shared/Inner.luau:5: x" {
		t.Errorf("from the parent folder: %q", got)
	}
}

func TestNilMapKeepsDataModelPaths(t *testing.T) {
	var m *Map
	if got := m.Rewrite("ServerScriptService.Main:1: x"); got != "ServerScriptService.Main:1: x" {
		t.Errorf("Rewrite = %q", got)
	}
	if got := m.Locate("run.luau:3: x"); !reflect.DeepEqual(got, []Location{{Path: "run.luau", Line: 3, File: "run.luau"}}) {
		t.Errorf("Locate = %+v", got)
	}
	if m.Len() != 0 || m.PathOf("x.luau") != "" || m.Missing() != nil {
		t.Error("a nil map maps something")
	}
}

func TestMissingFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "A.luau"), []byte("return 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := ParseMap([]byte(`{"name":"P","className":"DataModel","children":[{"name":"ServerScriptService","className":"ServerScriptService","children":[
		{"name":"A","className":"ModuleScript","filePaths":["src/A.luau"]},
		{"name":"Gone","className":"Script","filePaths":["src/Gone.server.luau"]}]}]}`), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Missing(); !reflect.DeepEqual(got, []string{"src/Gone.server.luau"}) {
		t.Fatalf("Missing = %v", got)
	}
	f := &Found{File: "sourcemap.json", Map: m, Missing: m.Missing()}
	if note := f.MissingNote(); !strings.Contains(note, "src/Gone.server.luau") || !strings.Contains(note, "stale") {
		t.Errorf("MissingNote = %q", note)
	}
	f.Forget()
	if got := m.Rewrite("ServerScriptService.Gone:1: x"); got != "ServerScriptService.Gone:1: x" {
		t.Errorf("a missing file is still trusted: %q", got)
	}
	if got := m.Rewrite("ServerScriptService.A:1: x"); got != "src/A.luau:1: x" {
		t.Errorf("a present file is no longer mapped: %q", got)
	}
}
