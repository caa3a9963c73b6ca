package emulator_test

// MCP output caps end to end: studio_exec, studio_logs and studio_query
// answer at most maxOutputBytes (64 KiB by default) of JSON, keeping the
// head and the tail, and say so; the CLI still prints everything.

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMCPOutputCaps(t *testing.T) {
	port, _, _, _ := editWindow(t, "E2E-CAPS-MCP")
	cs := mcpSession(t, port)

	chatty := `for i = 1, 6000 do print(string.format("chatty %05d", i)) end return "end"`
	check := func(what string, out map[string]any, limit int, want ...string) {
		t.Helper()
		raw, _ := json.Marshal(out)
		if len(raw) > limit {
			t.Errorf("%s: %d bytes of structured content, over %d", what, len(raw), limit)
		}
		if out["truncated"] != true {
			t.Errorf("%s: truncated = %v", what, out["truncated"])
		}
		if total, _ := out["totalBytes"].(float64); int(total) <= limit {
			t.Errorf("%s: totalBytes = %v", what, out["totalBytes"])
		}
		for _, w := range want {
			if !strings.Contains(string(raw), w) {
				t.Errorf("%s: %q missing", what, w)
			}
		}
	}

	out, isErr := mcpCall(t, cs, "studio_exec", map[string]any{"script": chatty})
	if isErr {
		t.Fatalf("studio_exec: %v", out)
	}
	check("studio_exec (default cap)", out, 64<<10, "chatty 00001", "chatty 06000", `"success":true`, `"returnValues":["end"]`)

	out, isErr = mcpCall(t, cs, "studio_logs", map[string]any{"count": 5000, "maxOutputBytes": 4096})
	if isErr {
		t.Fatalf("studio_logs: %v", out)
	}
	check("studio_logs (4 KiB)", out, 4096, "chatty 06000")

	out, isErr = mcpCall(t, cs, "studio_query", map[string]any{"path": "game", "depth": 3, "maxOutputBytes": 2048})
	if isErr {
		t.Fatalf("studio_query: %v", out)
	}
	check("studio_query (2 KiB)", out, 2048, `"className":"DataModel"`)

	// small results are untouched
	out, _ = mcpCall(t, cs, "studio_exec", map[string]any{"script": `print("small")`})
	if _, cut := out["truncated"]; cut || out["totalBytes"] != nil {
		t.Errorf("a small result was marked: %v", out)
	}
	// a bad cap is invalid input
	if msg := mcpRefused(t, cs, "studio_logs", map[string]any{"maxOutputBytes": 10}); !strings.Contains(msg, "maxOutputBytes must be a whole number from 1024") {
		t.Errorf("maxOutputBytes 10: %q", msg)
	}

	// the CLI prints everything
	stdout, _, code := cli(t, port, "exec", chatty)
	if code != 0 || strings.Count(stdout, "chatty ") != 6000 {
		t.Errorf("CLI exec: exit %d, %d lines", code, strings.Count(stdout, "chatty "))
	}
}
