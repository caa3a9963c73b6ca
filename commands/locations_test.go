package commands

import (
	"reflect"
	"testing"

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
