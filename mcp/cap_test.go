package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
)

func TestCapOutput(t *testing.T) {
	t.Parallel()
	lines := make([]commands.Line, 10000)
	for i := range lines {
		lines[i] = commands.Line{Level: "Print", Body: fmt.Sprintf("line %05d", i)}
	}
	chatty := commands.ExecData{Success: true, Logs: lines}
	huge := commands.ExecData{Success: false, Error: "boom", Logs: []commands.Line{{Level: "Print", Body: "start" + strings.Repeat("é", 100000) + "end"}}}
	nodes := make([]map[string]any, 2000)
	for i := range nodes {
		nodes[i] = map[string]any{"name": fmt.Sprintf("Part%d", i), "className": "Part", "path": fmt.Sprintf("Workspace.Part%d", i), "properties": map[string]any{"Anchored": true}}
	}
	var failing, passing commands.TestData
	for i := range 200 {
		failing.Tests = append(failing.Tests, commands.TestCase{Name: fmt.Sprintf("t%03d", i), Status: "failed", File: "a.spec.luau", Message: "a.spec.luau:1: " + strings.Repeat("why ", 500)})
	}
	for i := range 3000 {
		passing.Tests = append(passing.Tests, commands.TestCase{Name: fmt.Sprintf("p%04d", i), Status: "passed", File: "a.spec.luau"})
	}
	tree := commands.QueryData{Instance: &commands.QueryNode{Name: "Workspace", ClassName: "Workspace", Path: "Workspace", Children: nodes}}

	for _, tc := range []struct {
		name  string
		data  any
		limit int
		want  []string // in the capped JSON
	}{
		{"an exec's many lines keep head and tail", chatty, DefaultMaxOutput, []string{`"line 00000"`, `"line 09999"`, `"success":true`}},
		{"a small cap", chatty, 2048, []string{`"line 00000"`, `"line 09999"`}},
		{"one huge line keeps its head and tail", huge, 4096, []string{`"error":"boom"`, `start`, `end"`, `bytes cut`}},
		{"a query's tree", tree, 8192, []string{`"Part0"`, `"Part1999"`, `"className":"Workspace"`}},
		{"a test report cuts its messages and keeps every test", failing, 32768, []string{`"t000"`, `"t100"`, `"t199"`, `"a.spec.luau:1: why`, `[cut]`}},
		{"a test report with no message to cut is cut in the middle", passing, 8192, []string{`"p0000"`, `"p2999"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full, _ := json.Marshal(tc.data)
			got, err := capOutput(tc.data, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(got)
			if len(raw) > tc.limit {
				t.Errorf("%d bytes, over the cap of %d", len(raw), tc.limit)
			}
			var top map[string]any
			if err := json.Unmarshal(raw, &top); err != nil {
				t.Fatal(err)
			}
			if top["truncated"] != true || top["totalBytes"] != float64(len(full)) {
				t.Errorf("truncated %v, totalBytes %v (want true, %d)", top["truncated"], top["totalBytes"], len(full))
			}
			for _, w := range tc.want {
				if !strings.Contains(string(raw), w) {
					t.Errorf("%s missing from %.300s…", w, raw)
				}
			}
			// every key of the whole answer is still there (the schema holds)
			var whole map[string]any
			_ = json.Unmarshal(full, &whole)
			for k := range whole {
				if _, ok := top[k]; !ok {
					t.Errorf("key %q was dropped", k)
				}
			}
			if !json.Valid(raw) {
				t.Error("not valid JSON")
			}
		})
	}

	small := commands.ExecData{Success: true, Logs: []commands.Line{{Level: "Print", Body: "hi"}}}
	got, err := capOutput(small, DefaultMaxOutput)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.(commands.ExecData); !ok {
		t.Errorf("a result under the cap changed: %#v", got)
	}
}
