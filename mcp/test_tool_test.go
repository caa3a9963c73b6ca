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
// would pass the output budget keeps every test and cuts the messages.
func TestStudioTestKeepsTheDocumentUnderTheBudget(t *testing.T) {
	w := newWorld(t)
	var tests []map[string]any
	for i := 0; i < 40; i++ {
		tests = append(tests, map[string]any{"name": "spec › fails " + strings.Repeat("x", i), "status": "failed", "file": "tests/a.spec.luau", "line": 3,
			"message": "tests/a.spec.luau:3: " + strings.Repeat("long message ", 1000)})
	}
	tests = append(tests, map[string]any{"name": "spec › passes", "status": "passed", "file": "tests/a.spec.luau"})
	answer, _ := json.Marshal(map[string]any{"tests": tests, "durationMs": 5, "names": map[string]string{}})
	var sent string
	kit.Plugin(t, fakeplugin.Config{Port: w.port, InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit, PlaceName: "Place",
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
	res := call(t, cs, "studio_test", map[string]any{"root": "ReplicatedStorage.Tests"})
	if res.IsError {
		t.Fatalf("error: %+v", res.Content)
	}
	m := text(t, res)
	if m["failed"] != float64(40) || m["passed"] != float64(1) || len(m["tests"].([]any)) != 41 {
		t.Fatalf("document: failed %v passed %v", m["failed"], m["passed"])
	}
	doc, _ := json.Marshal(m)
	if len(doc) > OutputBudget {
		t.Fatalf("%d bytes, over the %d budget", len(doc), OutputBudget)
	}
	first := m["tests"].([]any)[0].(map[string]any)["message"].(string)
	if !strings.HasPrefix(first, "tests/a.spec.luau:3: long message") || !strings.HasSuffix(first, "[cut]") {
		t.Fatalf("message: %q", first)
	}
	if !strings.Contains(sent, `root="ReplicatedStorage.Tests"`) {
		t.Fatal("the runner was not sent")
	}
}
