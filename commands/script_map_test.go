package commands

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// A script the source map syncs from a file is refused for editing
// (SCRIPT_MANAGED), naming the file and the line the edit would change;
// unsynced scripts pass; --in-studio turns the refusal into a warning.
func TestManagedScripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"sourcemap.json": `{"name":"Game","className":"DataModel","children":[{"name":"ServerScriptService","className":"ServerScriptService","children":[` +
			`{"name":"Main","className":"Script","filePaths":["src/server/Main.server.luau","src/server/Main.meta.json"]}]}]}`,
		"src/server/Main.server.luau": "local x = 1\nprint(x)\nreturn nil\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, err := sourcemap.Load(filepath.Join(dir, "sourcemap.json"))
	if err != nil {
		t.Fatal(err)
	}
	m.Prefix = ""
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name string
		op   actions.ScriptEditOp
		want string // "" is no refusal
	}{
		{"find names the file's line", actions.ScriptEditOp{Path: "ServerScriptService.Main", Find: str("print(x)"), Replace: str("print(2)")}, "src/server/Main.server.luau:2"},
		{"game. prefix", actions.ScriptEditOp{Path: "game.ServerScriptService.Main", Find: str("return nil"), Replace: str("")}, "src/server/Main.server.luau:3"},
		{"lines name their first line", actions.ScriptEditOp{Path: "ServerScriptService.Main", Lines: "2-3", With: str("")}, "src/server/Main.server.luau:2"},
		{"whole source", actions.ScriptEditOp{Path: "ServerScriptService.Main", Source: str("")}, "src/server/Main.server.luau:1"},
		{"text not in the file names the file", actions.ScriptEditOp{Path: "ServerScriptService.Main", Find: str("studio only"), Replace: str("")}, "from src/server/Main.server.luau: edit"},
		{"unsynced script", actions.ScriptEditOp{Path: "ServerScriptService.Other", Source: str("")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := actions.ScriptEditRequest{Edits: []actions.ScriptEditOp{tc.op}}
			err := managedError(m, req)
			if tc.want == "" {
				if err != nil || managedWarning(m, req) != "" {
					t.Fatalf("refused %v, want it to pass", err)
				}
				return
			}
			var w *Worded
			if protocol.CodeOf(err) != protocol.CodeScriptManaged || !errors.As(err, &w) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--in-studio") {
				t.Fatalf("%v, want SCRIPT_MANAGED naming %q and --in-studio", err, tc.want)
			}
			if warn := managedWarning(m, req); !strings.Contains(warn, "src/server/Main.server.luau") {
				t.Fatalf("--in-studio warning %q", warn)
			}
		})
	}
	if got := syncedFile(m, "ServerScriptService.Main"); got != "src/server/Main.server.luau" {
		t.Errorf("syncedFile = %q", got)
	}
	if got := syncedFile(nil, "ServerScriptService.Main"); got != "" {
		t.Errorf("without a map syncedFile = %q", got)
	}
}
