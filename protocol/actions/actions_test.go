package actions

import (
	"encoding/json"
	"testing"
)

// TestWireNames pins the JSON the plugin reads and writes
// (plugin/src/Actions/Script*.luau): a renamed field breaks the contract.
func TestWireNames(t *testing.T) {
	find, replace, src := "a", "b", "print(1)\n"
	for _, tt := range []struct {
		name string
		v    any
		want string
	}{
		{"read request", ScriptReadRequest{Path: "ServerScriptService.Main", Lines: "2-", AllowPlay: true},
			`{"path":"ServerScriptService.Main","lines":"2-","allowPlay":true}`},
		{"read request, defaults left out", ScriptReadRequest{Path: "X"}, `{"path":"X"}`},
		{"grep request", ScriptGrepRequest{Pattern: "p", Literal: true, IgnoreCase: true, ContextLines: 2, Root: "R", Classes: []string{"Script"}, MaxPerScript: 3, MaxMatches: 4, Cursor: "c"},
			`{"pattern":"p","literal":true,"ignoreCase":true,"contextLines":2,"root":"R","classes":["Script"],"maxPerScript":3,"maxMatches":4,"cursor":"c"}`},
		{"edit batch", ScriptEditRequest{
			Edits: []ScriptEditOp{
				{Path: "A", Find: &find, Replace: &replace, All: true},
				{Path: "B", Create: true, ClassName: "Script", RunContext: "Server", Source: &src},
			},
			ExpectHashes: map[string]string{"A": "0123456789abcdef"},
		}, `{"edits":[{"path":"A","find":"a","replace":"b","all":true},{"path":"B","source":"print(1)\n","create":true,"className":"Script","runContext":"Server"}],"expectHashes":{"A":"0123456789abcdef"}}`},
	} {
		got, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}

	// an answer as the plugin sends it decodes into every field
	var r ScriptReadResult
	if err := json.Unmarshal([]byte(`{"path":"game.X","className":"ModuleScript","hash":"h","lineCount":3,"fromEditor":true,"firstLine":2,"lines":["a","b"]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Path != "game.X" || r.ClassName != "ModuleScript" || r.Hash != "h" || r.LineCount != 3 || !r.FromEditor || r.FirstLine != 2 || len(r.Lines) != 2 || r.Source != nil {
		t.Errorf("read result: %+v", r)
	}
	var g ScriptGrepResult
	if err := json.Unmarshal([]byte(`{"matches":[{"path":"P","line":4,"column":2,"text":"t","before":["b"],"after":["a"]}],"nextCursor":"g1:1:5:P","cutScripts":["P"],"scripts":1,"bytes":9,"instances":3,"slices":2,"longestSliceMs":3.5}`), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Matches) != 1 || g.Matches[0].Column != 2 || g.Matches[0].After[0] != "a" || g.NextCursor == "" || g.LongestSliceMs != 3.5 || g.Instances != 3 {
		t.Errorf("grep result: %+v", g)
	}
}
