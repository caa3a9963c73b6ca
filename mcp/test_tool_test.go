package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// studio_test answers the JSON document; a run whose failure messages
// would pass maxOutputBytes (the default, or the call's) keeps every test
// and cuts the messages, and says so as the other capped tools do.
func TestStudioTestKeepsTheDocumentUnderTheBudget(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var tests []map[string]any
	for i := 0; i < 40; i++ {
		tests = append(tests, map[string]any{"name": "spec › fails " + strings.Repeat("x", i), "status": "failed", "file": "tests/a.spec.luau", "line": 3,
			"message": "tests/a.spec.luau:3: " + strings.Repeat("long message ", 1000)})
	}
	tests = append(tests, map[string]any{"name": "spec › passes", "status": "passed", "file": "tests/a.spec.luau"})
	answer, _ := json.Marshal(map[string]any{"tests": tests, "durationMs": 5, "names": map[string]string{}})
	var sent string
	kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit, PlaceName: "Place",
		Handler: func(action string, payload json.RawMessage) fakeplugin.Reply {
			var req struct {
				Script  string `json:"script"`
				History *bool  `json:"history"`
			}
			_ = json.Unmarshal(payload, &req)
			if action != "exec" || req.History == nil || *req.History {
				return fakeplugin.Reply{Payload: map[string]any{"success": false, "error": "want an exec with history false", "logs": []any{}}}
			}
			sent = req.Script
			return fakeplugin.Reply{Payload: map[string]any{"success": true, "logs": []any{}, "returnValues": []any{string(answer)}}}
		}})
	cs := w.client(t, Options{})
	for _, tc := range []struct {
		name  string
		args  map[string]any
		limit int
	}{
		{"the default", map[string]any{"root": "ReplicatedStorage.Tests"}, DefaultMaxOutput},
		{"the call's maxOutputBytes", map[string]any{"root": "ReplicatedStorage.Tests", "maxOutputBytes": 8192}, 8192},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, "studio_test", tc.args)
			if res.IsError {
				t.Fatalf("error: %+v", res.Content)
			}
			m := text(t, res)
			if m["failed"] != float64(40) || m["passed"] != float64(1) || len(m["tests"].([]any)) != 41 {
				t.Fatalf("document: failed %v passed %v", m["failed"], m["passed"])
			}
			doc, _ := json.Marshal(m)
			if len(doc) > tc.limit {
				t.Fatalf("%d bytes, over the %d cap", len(doc), tc.limit)
			}
			if m["truncated"] != true || m["totalBytes"].(float64) < 400000 {
				t.Fatalf("truncated %v, totalBytes %v", m["truncated"], m["totalBytes"])
			}
			for _, v := range m["tests"].([]any)[:40] {
				msg := v.(map[string]any)["message"].(string)
				if !strings.HasPrefix(msg, "tests/a.spec.luau:3: long message") || !strings.HasSuffix(msg, "[cut]") {
					t.Fatalf("message: %q", msg)
				}
			}
			if !strings.Contains(sent, `root="ReplicatedStorage.Tests"`) {
				t.Fatal("the runner was not sent")
			}
		})
	}
}
