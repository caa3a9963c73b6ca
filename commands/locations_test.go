package commands

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands/testrun"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

func TestExecResultLocations(t *testing.T) {
	m, err := sourcemap.ParseMap([]byte(`{"name":"P","className":"DataModel","children":[{"name":"ReplicatedStorage","className":"ReplicatedStorage","children":[
		{"name":"Inner","className":"ModuleScript","filePaths":["src/Inner.luau"]},
		{"name":"Outer","className":"ModuleScript","filePaths":["src/Outer.luau"]}]}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	failed := ExecData{
		Error:     "ReplicatedStorage.Inner:5: attempt to index nil with 'field'",
		Traceback: "ReplicatedStorage.Inner:5 function read\nReplicatedStorage.Outer:7 function run\nscripts/nested.luau:2\n",
	}
	tests := []struct {
		name    string
		m       *sourcemap.Map
		data    ExecData
		failure string
		locs    []sourcemap.Location
	}{
		{"with a map every frame is a file", m, failed,
			"script error: src/Inner.luau:5: attempt to index nil with 'field'\ntraceback:\n  src/Inner.luau:5 function read\n  src/Outer.luau:7 function run\n  scripts/nested.luau:2",
			[]sourcemap.Location{
				{Path: "ReplicatedStorage.Inner", Line: 5, File: "src/Inner.luau"},
				{Path: "ReplicatedStorage.Inner", Line: 5, File: "src/Inner.luau"},
				{Path: "ReplicatedStorage.Outer", Line: 7, File: "src/Outer.luau"},
				{Path: "scripts/nested.luau", Line: 2, File: "scripts/nested.luau"},
			}},
		{"without one DataModel paths stay and the file chunk is a file", nil, failed,
			"script error: ReplicatedStorage.Inner:5: attempt to index nil with 'field'\ntraceback:\n  ReplicatedStorage.Inner:5 function read\n  ReplicatedStorage.Outer:7 function run\n  scripts/nested.luau:2",
			[]sourcemap.Location{
				{Path: "ReplicatedStorage.Inner", Line: 5},
				{Path: "ReplicatedStorage.Inner", Line: 5},
				{Path: "ReplicatedStorage.Outer", Line: 7},
				{Path: "scripts/nested.luau", Line: 2, File: "scripts/nested.luau"},
			}},
		{"a one-frame traceback adds nothing to the text", nil, ExecData{Error: "Script:2: boom", Traceback: "Script:2\n"},
			"script error: Script:2: boom",
			[]sourcemap.Location{{Path: "Script", Line: 2}, {Path: "Script", Line: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SetSourceMap(tc.m)
			defer SetSourceMap(nil)
			res := execResult(tc.data)
			if res.Failure != tc.failure {
				t.Errorf("Failure\n got %q\nwant %q", res.Failure, tc.failure)
			}
			if got := res.Data.(ExecData).Locations; !reflect.DeepEqual(got, tc.locs) {
				t.Errorf("Locations\n got %+v\nwant %+v", got, tc.locs)
			}
		})
	}
	if got := execResult(ExecData{Success: true}).Data.(ExecData).Locations; got != nil {
		t.Errorf("a successful exec has locations %+v", got)
	}
}

func TestLinesLocatedAndRendered(t *testing.T) {
	m, err := sourcemap.ParseMap([]byte(`{"name":"P","className":"DataModel","children":[{"name":"ServerScriptService","className":"ServerScriptService","children":[
		{"name":"Main","className":"Script","filePaths":["src/server/Main.server.luau"]}]}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	SetSourceMap(m)
	defer SetSourceMap(nil)
	tests := []struct {
		line     Line
		rendered string
		locs     []sourcemap.Location
	}{
		{Line{Level: "Error", Body: "ServerScriptService.Main:27: boom"}, "[Error] src/server/Main.server.luau:27: boom\n",
			[]sourcemap.Location{{Path: "ServerScriptService.Main", Line: 27, File: "src/server/Main.server.luau"}}},
		{Line{Level: "Info", Body: "Script 'ServerScriptService.Main', Line 27"}, "[Info] src/server/Main.server.luau:27 (ServerScriptService.Main)\n",
			[]sourcemap.Location{{Path: "ServerScriptService.Main", Line: 27, File: "src/server/Main.server.luau"}}},
		{Line{Level: "Error", Body: "Workspace.Other:3: not synced"}, "[Error] Workspace.Other:3: not synced\n",
			[]sourcemap.Location{{Path: "Workspace.Other", Line: 3}}},
		{Line{Level: "Print", Body: "hello"}, "hello\n", nil},
	}
	for _, tc := range tests {
		if got := RenderLine(tc.line); got != tc.rendered {
			t.Errorf("RenderLine(%q) = %q, want %q", tc.line.Body, got, tc.rendered)
		}
		if got := tc.line.Located().Locations; !reflect.DeepEqual(got, tc.locs) {
			t.Errorf("Located(%q) = %+v, want %+v", tc.line.Body, got, tc.locs)
		}
	}
}

func TestConfigureSourceMapFindsOnceAndWarns(t *testing.T) {
	defer SetSourceMap(nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "default.project.json"), []byte(`{"name":"P","tree":{"$className":"DataModel"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var notes []string
	ConfigureSourceMap(context.Background(), sourcemap.Options{Root: dir, Getenv: func(string) string { return "" }}, func(s string) { notes = append(notes, s) })
	// asked twice, it is looked for once (one hint below)
	first, second := SourceMap(), SourceMap()
	if first != nil || second != nil {
		t.Fatal("a project without a map has one")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "rojo sourcemap default.project.json --output sourcemap.json") {
		t.Fatalf("notes %q: want the hint once", notes)
	}
}

func TestLocateTestCase(t *testing.T) {
	m, err := sourcemap.ParseMap([]byte(`{"name":"P","className":"DataModel","children":[{"name":"ReplicatedStorage","className":"ReplicatedStorage","children":[
		{"name":"Strings","className":"ModuleScript","filePaths":["src/Strings.luau"]},
		{"name":"Strings.spec","className":"ModuleScript","filePaths":["src/Strings.spec.luau"]}]}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		m    *sourcemap.Map
		in   TestCase
		want TestCase
	}{
		{"a --root spec gets its file", m,
			TestCase{Name: "x", File: "ReplicatedStorage.Strings.spec", Line: 4, Message: "ReplicatedStorage.Strings.spec:4: expected 1 ReplicatedStorage.Strings:9"},
			TestCase{Name: "x", File: "src/Strings.spec.luau", Line: 4, Message: "src/Strings.spec.luau:4: expected 1 ReplicatedStorage.Strings:9", InstancePath: "ReplicatedStorage.Strings.spec"}},
		{"a spec file gets its synced instance", m,
			TestCase{Name: "x", File: "src/Strings.spec.luau", Line: 4, Message: "src/Strings.spec.luau:4: boom"},
			TestCase{Name: "x", File: "src/Strings.spec.luau", Line: 4, Message: "src/Strings.spec.luau:4: boom", InstancePath: "ReplicatedStorage.Strings.spec"}},
		{"without a map nothing changes", nil,
			TestCase{Name: "x", File: "ReplicatedStorage.Strings.spec", Line: 4, Message: "ReplicatedStorage.Strings.spec:4: boom"},
			TestCase{Name: "x", File: "ReplicatedStorage.Strings.spec", Line: 4, Message: "ReplicatedStorage.Strings.spec:4: boom"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := testrun.LocateTestCase(tc.m, tc.in); got != tc.want {
				t.Errorf("\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// SetSourceMapRoot (MCP's client root) looks for the map in another root,
// shows its files from there, and does nothing for the same root or a map
// set directly.
func TestSetSourceMapRoot(t *testing.T) {
	defer SetSourceMap(nil)
	noEnv := func(string) string { return "" }
	wd := t.TempDir() // no map here
	client := t.TempDir()
	if err := os.WriteFile(filepath.Join(client, "sourcemap.json"), []byte(`{"name":"P","className":"DataModel","children":[{"name":"ReplicatedStorage","className":"ReplicatedStorage","children":[`+
		`{"name":"Inner","className":"ModuleScript","filePaths":["src/Inner.luau"]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(client, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(client, "src", "Inner.luau"), []byte("return 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	var notes []string
	ConfigureSourceMap(context.Background(), sourcemap.Options{Root: wd, Getenv: noEnv}, func(s string) { notes = append(notes, s) })
	if SourceMap() != nil {
		t.Fatal("a map in a root without one")
	}
	if SetSourceMapRoot(wd) {
		t.Error("the same root changed something")
	}
	if !SetSourceMapRoot(client) {
		t.Fatal("the client's root was not taken")
	}
	m := SourceMap()
	if m == nil || m.FileOf("ReplicatedStorage.Inner") != "src/Inner.luau" {
		t.Fatalf("map %+v: want src/Inner.luau, shown from the client's root", m)
	}
	if len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}
	SetSourceMap(nil)
	if SetSourceMapRoot(wd) || SourceMap() != nil {
		t.Error("a map set directly was looked for again")
	}
}
