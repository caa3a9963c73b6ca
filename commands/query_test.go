package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// A query through a path that named several siblings says the first was
// taken; a script's Source (long, multi-line text) is summarized in a
// tree of default properties and printed whole when asked for by name.
func TestQueryRendering(t *testing.T) {
	t.Parallel()
	source := "local M = {}\n" + strings.Repeat("-- padding\n", 50) + "return M"
	answer := map[string]any{
		"instance": map[string]any{"name": "Shared", "className": "Folder", "path": "game.ReplicatedStorage.Shared", "childCount": 1,
			"properties": map[string]any{"Name": "Shared", "Notes": source}, "attributes": map[string]any{},
			"children": []any{map[string]any{"name": "Util", "className": "ModuleScript", "path": "game.ReplicatedStorage.Shared.Util", "childCount": 0,
				"properties": map[string]any{"Source": source, "Name": "Util"}, "attributes": map[string]any{}}},
		},
		"duplicates": []any{map[string]any{"path": "game.ReplicatedStorage.Shared", "count": 2}},
	}
	port := kit.FreePort(t)
	b := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 300 * time.Millisecond})
	t.Cleanup(b.Kill)
	kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: func(action string, payload json.RawMessage) fakeplugin.Reply {
		return fakeplugin.Reply{Payload: answer}
	}})
	s, err := b.Resolve(context.Background(), bridge.Target{})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Bridge: b, Session: s}

	res, err := run(t, env, Query, &QueryArgs{Path: "ReplicatedStorage.Shared", Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := "note: game.ReplicatedStorage.Shared names 2 instances; this is the first of them"; !strings.HasPrefix(res.Note, want) {
		t.Errorf("note %q, want it to start %q", res.Note, want)
	}
	if d := res.Data.(QueryData).Duplicates; len(d) != 1 || d[0].Count != 2 {
		t.Errorf("data: %+v", d)
	}
	// A script's Source points at script read; other long text is
	// summarized.
	if want := fmt.Sprintf("      Source = \"[52 lines, %d bytes: studio-bridge script read game.ReplicatedStorage.Shared.Util]\"\n", len(source)); !strings.Contains(res.Text, want) {
		t.Errorf("text:\n%s\nwant the Source pointing at script read: %q", res.Text, want)
	}
	if want := fmt.Sprintf("  Notes = <text: 52 lines, %d bytes; --properties Notes prints it>\n", len(source)); !strings.Contains(res.Text, want) || strings.Contains(res.Text, "padding") {
		t.Errorf("text:\n%s\nwant Notes summarized as %q", res.Text, want)
	}

	res, err = run(t, env, Query, &QueryArgs{Path: "ReplicatedStorage.Shared", Depth: 1, Properties: []string{"Source"}})
	if err != nil || !strings.Contains(res.Text, "-- padding") {
		t.Fatalf("asked for by name, the Source is printed whole (%v):\n%s", err, res.Text)
	}
}
