package emulator_test

// script read, grep and edit through the real CLI and MCP server, against
// the real plugin in the emulator (its ScriptEditorService:
// runtime/scripteditor.luau). test/emulator/test/scripts.test.mjs covers the
// plugin's side in more detail.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// scriptWindow is a window in Edit whose ServerScriptService.Locked refuses
// every change (the script-locked fault), and a CLI runner for it.
func scriptWindow(t *testing.T, instance string) (port int, studio *proc, run func(args ...string) (string, string, int)) {
	t.Helper()
	var b *bridge.Bridge
	port, studio, b = startWindow(t, "--instance", instance, "--quiet", "--fault", "script-locked:ServerScriptService.Locked:held by Ana in Team Create")
	waitSessions(t, b, instance, protocol.ContextEdit)
	run = func(args ...string) (string, string, int) {
		t.Helper()
		return cli(t, port, args...)
	}
	return port, studio, run
}

// luau runs code in the edit DataModel and fails the test if it errors.
func luau(t *testing.T, run func(args ...string) (string, string, int), code string) string {
	t.Helper()
	stdout, stderr, exit := run("exec", code)
	if exit != 0 {
		if len(code) > 200 {
			code = code[:200] + "…"
		}
		t.Fatalf("exec %q: exit %d, stdout %q, stderr %q", code, exit, stdout, stderr)
	}
	return strings.TrimSpace(stdout)
}

func readJSON(t *testing.T, run func(args ...string) (string, string, int), path string, extra ...string) actions.ScriptReadResult {
	t.Helper()
	stdout, stderr, code := run(append([]string{"--json", "script", "read", path}, extra...)...)
	var r actions.ScriptReadResult
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil {
		t.Fatalf("script read %s: exit %d, stdout %q, stderr %q", path, code, stdout, stderr)
	}
	return r
}

func source(r actions.ScriptReadResult) string {
	if r.Source == nil {
		return ""
	}
	return *r.Source
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScriptCommandsThroughCLI(t *testing.T) {
	_, studio, run := scriptWindow(t, "E2E-SCRIPTS-CLI")
	luau(t, run, `local sss = game:GetService("ServerScriptService")
		for name, src in { Main = "local x = 1\nlocal y = 2\nprint(x, y)\n", A = "a = 1\n", B = "b = 1\n", Locked = "l = 1\n", Undo = "u = 1\n" } do
			local s = Instance.new("Script") s.Name = name s.Source = src s.Parent = sss
		end`)

	t.Run("unsaved editor text is read, with line numbers, and kept by an edit elsewhere", func(t *testing.T) {
		luau(t, run, `local ses = game:GetService("ScriptEditorService")
			local s = game:GetService("ServerScriptService").Main
			assert(ses:OpenScriptDocumentAsync(s))
			assert(ses:FindScriptDocument(s):EditTextAsync("local x = 100 -- typed", 1, 1, 1, 12))`)
		stdout, stderr, code := run("script", "read", "ServerScriptService.Main")
		if code != 0 || stdout != "1  local x = 100 -- typed\n2  local y = 2\n3  print(x, y)\n" {
			t.Fatalf("script read: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if !strings.Contains(stderr, "unsaved text included") || !strings.Contains(stderr, "4 lines") {
			t.Errorf("note on stderr: %q", stderr)
		}
		r := readJSON(t, run, "ServerScriptService.Main")
		if !r.FromEditor || r.ClassName != "Script" || r.LineCount != 4 || len(r.Hash) != 16 {
			t.Fatalf("read --json: %+v", r)
		}
		stdout, stderr, code = run("script", "edit", "ServerScriptService.Main", "--find", "local y = 2", "--replace", "local y = 3", "--expect-hash", r.Hash)
		if code != 0 || !strings.Contains(stdout, "-local y = 2\n+local y = 3\n") {
			t.Fatalf("script edit: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if got := source(readJSON(t, run, "ServerScriptService.Main")); got != "local x = 100 -- typed\nlocal y = 3\nprint(x, y)\n" {
			t.Fatalf("after the edit: %q, want the typed line kept", got)
		}
		// ranges
		if r := readJSON(t, run, "ServerScriptService.Main", "--lines", "2-3"); r.FirstLine != 2 || strings.Join(r.Lines, "|") != "local y = 3|print(x, y)" {
			t.Fatalf("--lines 2-3: %+v", r)
		}
	})

	t.Run("SCRIPT_CHANGED after a concurrent edit, and nothing written", func(t *testing.T) {
		r := readJSON(t, run, "ServerScriptService.A")
		luau(t, run, `game:GetService("ServerScriptService").A.Source = "a = 5\n"`)
		_, stderr, code := run("script", "edit", "ServerScriptService.A", "--find", "a = 1", "--replace", "a = 2", "--expect-hash", r.Hash)
		if code != 1 || !strings.Contains(stderr, "changed since it was read") {
			t.Fatalf("exit %d, stderr %q; want exit 1 and SCRIPT_CHANGED's message", code, stderr)
		}
		if got := source(readJSON(t, run, "ServerScriptService.A")); got != "a = 5\n" {
			t.Fatalf("A is %q", got)
		}
	})

	t.Run("NO_MATCH and AMBIGUOUS_MATCH name what to do", func(t *testing.T) {
		_, stderr, code := run("script", "edit", "ServerScriptService.Main", "--find", "nowhere", "--replace", "x")
		if code != 1 || !strings.Contains(stderr, "does not occur") {
			t.Fatalf("no match: exit %d, stderr %q", code, stderr)
		}
		_, stderr, code = run("script", "edit", "ServerScriptService.Main", "--find", "local", "--replace", "x")
		if code != 1 || !strings.Contains(stderr, "(lines 1, 2)") {
			t.Fatalf("ambiguous: exit %d, stderr %q", code, stderr)
		}
		_, stderr, code = run("script", "edit", "ServerScriptService.Main", "--find", "local")
		if code != 2 || !strings.Contains(stderr, "--replace") {
			t.Fatalf("a forgotten --replace: exit %d, stderr %q", code, stderr)
		}
		_, stderr, code = run("script", "read", "Workspace")
		if code != 1 || !strings.Contains(stderr, "not a script") {
			t.Fatalf("NOT_A_SCRIPT: exit %d, stderr %q", code, stderr)
		}
	})

	t.Run("a 300,000-character script is created and edited", func(t *testing.T) {
		big := "return {\n" + strings.Repeat("x", 300000) + "\n}\n"
		_, stderr, code := run("script", "edit", "ServerScriptService.Big", "--create", "--class", "ModuleScript", "--source", writeFile(t, "big.luau", big))
		if code != 0 {
			t.Fatalf("create: exit %d, stderr %q", code, stderr)
		}
		r := readJSON(t, run, "ServerScriptService.Big")
		if source(r) != big {
			t.Fatalf("read back %d bytes, want %d", len(source(r)), len(big))
		}
		_, stderr, code = run("script", "edit", "ServerScriptService.Big", "--lines", "1", "--with", writeFile(t, "head.luau", "return { -- big\n"), "--expect-hash", r.Hash)
		if code != 0 {
			t.Fatalf("edit: exit %d, stderr %q", code, stderr)
		}
		if got := luau(t, run, `local s = game:GetService("ServerScriptService").Big.Source print(#s, (string.sub(s, 1, 15)))`); got != fmt.Sprintf("%d return { -- big", len(big)+len(" -- big")) {
			t.Fatalf("after the edit: %q", got)
		}
	})

	t.Run("a batch whose third edit fails leaves the first two unchanged", func(t *testing.T) {
		batch := `{"edits": [
			{"path": "ServerScriptService.A", "source": "a = 2\n"},
			{"path": "ServerScriptService.B", "find": "b = 1", "replace": "b = 2"},
			{"path": "ServerScriptService.Locked", "find": "l = 1", "replace": "l = 2"}]}`
		_, stderr, code := run("script", "edit", "--batch", writeFile(t, "batch.json", batch))
		if code != 1 || !strings.Contains(stderr, "held by Ana in Team Create") || !strings.Contains(stderr, "put back") {
			t.Fatalf("exit %d, stderr %q; want SCRIPT_LOCKED with the reason and the scripts put back", code, stderr)
		}
		got := luau(t, run, `local sss = game:GetService("ServerScriptService") print(sss.A.Source .. sss.B.Source .. sss.Locked.Source)`)
		if got != "a = 5\nb = 1\nl = 1" {
			t.Fatalf("after the failed batch: %q", got)
		}
		_, stderr, code = run("script", "edit", "ServerScriptService.Locked", "--source", writeFile(t, "l.luau", "l = 3\n"))
		if code != 1 || !strings.Contains(stderr, "held by Ana in Team Create") {
			t.Fatalf("locked: exit %d, stderr %q", code, stderr)
		}
	})

	t.Run("an edit of a closed script is undone by one Ctrl+Z", func(t *testing.T) {
		if _, stderr, code := run("script", "edit", "ServerScriptService.Undo", "--find", "u = 1", "--replace", "u = 2"); code != 0 {
			t.Fatalf("edit: exit %d, stderr %q", code, stderr)
		}
		if got := historyStep(t, studio, "undo"); got != "Update source of ServerScriptService.Undo" {
			t.Fatalf("undo answered %q", got)
		}
		if got := source(readJSON(t, run, "ServerScriptService.Undo")); got != "u = 1\n" {
			t.Fatalf("after undo: %q", got)
		}
	})

	t.Run("grep pages across the cursor", func(t *testing.T) {
		var lines []string
		for i := 1; i <= 5; i++ {
			lines = append(lines, fmt.Sprintf("local needle%d = %d", i, i))
		}
		if _, stderr, code := run("script", "edit", "ServerScriptService.Hay", "--create", "--class", "Script", "--source", writeFile(t, "hay.luau", strings.Join(lines, "\n"))); code != 0 {
			t.Fatalf("create: %q", stderr)
		}
		var got []string
		cursor := ""
		for page := 0; page < 10; page++ {
			args := []string{"--json", "script", "grep", "needle%d", "--root", "ServerScriptService", "--max-matches", "2"}
			if cursor != "" {
				args = append(args, "--cursor", cursor)
			}
			stdout, stderr, code := run(args...)
			var r actions.ScriptGrepResult
			if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil {
				t.Fatalf("grep: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			for _, m := range r.Matches {
				got = append(got, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
			}
			if cursor = r.NextCursor; cursor == "" {
				break
			}
		}
		want := "game.ServerScriptService.Hay:1:7 game.ServerScriptService.Hay:2:7 game.ServerScriptService.Hay:3:7 game.ServerScriptService.Hay:4:7 game.ServerScriptService.Hay:5:7"
		if strings.Join(got, " ") != want {
			t.Fatalf("pages gave %v, want %s", got, want)
		}
		stdout, stderr, code := run("script", "grep", "NEEDLE3", "--literal", "-i", "--root", "ServerScriptService")
		if code != 0 || stdout != "game.ServerScriptService.Hay:3:7: local needle3 = 3\n" {
			t.Fatalf("text grep: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})

	t.Run("query points at script read instead of printing Source", func(t *testing.T) {
		stdout, stderr, code := run("query", "ServerScriptService.Undo")
		want := `Source = "[2 lines, 6 bytes: studio-bridge script read game.ServerScriptService.Undo]"`
		if code != 0 || strings.Contains(stdout, "u = 1") || !strings.Contains(stdout, want) {
			t.Fatalf("query: exit %d, stdout %q, stderr %q; want %s", code, stdout, stderr, want)
		}
		stdout, _, code = run("query", "ServerScriptService.Undo", "-p", "Source")
		if code != 0 || !strings.Contains(stdout, `u = 1`) {
			t.Fatalf("query -p Source: exit %d, stdout %q", code, stdout)
		}
	})
}

func TestScriptToolsThroughMCP(t *testing.T) {
	port, _, run := scriptWindow(t, "E2E-SCRIPTS-MCP")
	var body strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&body, "local line%03d = %q\n", i, strings.Repeat("v", 20))
	}
	luau(t, run, fmt.Sprintf(`local s = Instance.new("ModuleScript") s.Name = "Long" s.Source = %q s.Parent = game:GetService("ServerScriptService")`, body.String()))
	cs := mcpSession(t, port)

	out, isErr := mcpCall(t, cs, "studio_script_read", map[string]any{"path": "ServerScriptService.Long", "maxOutputBytes": 4096})
	if isErr || out["truncated"] != true || out["nextLines"] == nil || out["hash"] == nil {
		t.Fatalf("a cut read: %v", out)
	}
	lines, _ := out["lines"].([]any)
	next := fmt.Sprint(out["nextLines"])
	if len(lines) == 0 || next != fmt.Sprintf("%d-401", len(lines)+1) {
		t.Fatalf("a cut read kept %d lines and names %q next", len(lines), next)
	}
	hash := out["hash"].(string)

	out, isErr = mcpCall(t, cs, "studio_script_edit", map[string]any{
		"edits": []any{
			map[string]any{"path": "ServerScriptService.Long", "find": "local line001", "replace": "local first"},
			map[string]any{"path": "ServerScriptService.Made", "create": true, "className": "Script", "runContext": "Server", "source": "print('made')\n"},
		},
		"expectHashes": map[string]any{"ServerScriptService.Long": hash},
	})
	scripts, _ := out["scripts"].([]any)
	if isErr || len(scripts) != 2 {
		t.Fatalf("batch edit: %v", out)
	}
	out, isErr = mcpCall(t, cs, "studio_script_edit", map[string]any{"path": "ServerScriptService.Long", "find": "local line002", "replace": "x", "expectHash": hash})
	if !isErr || !strings.Contains(fmt.Sprint(out["error"]), "changed since it was read") {
		t.Fatalf("a stale hash: %v", out)
	}
	out, isErr = mcpCall(t, cs, "studio_script_grep", map[string]any{"pattern": "local first", "literal": true, "contextLines": 1, "root": "ServerScriptService"})
	matches, _ := out["matches"].([]any)
	if isErr || len(matches) != 1 {
		t.Fatalf("grep: %v", out)
	}
	m := matches[0].(map[string]any)
	if m["path"] != "game.ServerScriptService.Long" || m["line"] != float64(1) || fmt.Sprint(m["after"]) != fmt.Sprintf("[local line002 = %q]", strings.Repeat("v", 20)) {
		t.Fatalf("grep match: %v", m)
	}
}
