package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// queryConn answers doctor's queries from a table of paths; other methods
// are not used.
type queryConn struct {
	bridge.Conn
	trees map[string]string // query path → the instance node's JSON
	asked []string          // "path depth"
}

func (q *queryConn) Call(_ context.Context, _, action string, payload json.RawMessage, _ bridge.CallOptions) (json.RawMessage, error) {
	var req struct {
		Path       string   `json:"path"`
		Depth      int      `json:"depth"`
		Properties []string `json:"properties"`
	}
	if action != "query" || json.Unmarshal(payload, &req) != nil || len(req.Properties) != 1 || req.Properties[0] != "Name" {
		return nil, protocol.Errorf(protocol.CodeInvalidPayload, "unexpected %s %s", action, payload)
	}
	q.asked = append(q.asked, req.Path+" "+string(rune('0'+req.Depth)))
	tree, ok := q.trees[req.Path]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInstanceNotFound, "No instance found at path: game.%s", req.Path)
	}
	return json.RawMessage(`{"instance":` + tree + `}`), nil
}

// doctor's studio.sourceMap: one query per synced folder, to the depth the
// map needs; scripts Studio lacks (in a folder it has, or with their whole
// folder) make it degraded, naming them and their files.
func TestSourceMapCheck(t *testing.T) {
	defer SetSourceMap(nil)
	edit := protocol.SessionInfo{SessionID: "s", Capabilities: []string{"query"}}
	full := map[string]string{
		"ReplicatedStorage.Shared": `{"name":"Shared","children":[{"name":"Inner","children":[]},{"name":"Outer","children":[]},{"name":"Settings"},` +
			`{"name":"util","children":[{"name":"Strings"},{"name":"Strings.spec"},{"name":"Words.spec"}]}]}`,
		"ServerScriptService.Server":         `{"name":"Server","children":[{"name":"Main"}]}`,
		"StarterPlayer.StarterPlayerScripts": `{"name":"StarterPlayerScripts","children":[{"name":"Client"}]}`,
	}
	t.Run("all there", func(t *testing.T) {
		SetSourceMap(fixtureMap(t))
		q := &queryConn{trees: full}
		c := sourceMapCheck(context.Background(), &Env{}, q, edit)
		if c.Status != StatusOK || c.Detail != "7 of the source map's 7 scripts are in this window" {
			t.Fatalf("%+v", c)
		}
		if got := strings.Join(q.asked, ", "); got != "ReplicatedStorage.Shared 2, ServerScriptService.Server 1, StarterPlayer.StarterPlayerScripts 1" {
			t.Errorf("queries %s", got)
		}
	})
	t.Run("a script and a folder missing", func(t *testing.T) {
		SetSourceMap(fixtureMap(t))
		trees := map[string]string{
			"ReplicatedStorage.Shared":   `{"name":"Shared","children":[{"name":"Inner"},{"name":"util","children":[{"name":"Strings"},{"name":"Strings.spec"},{"name":"Words.spec"}]}]}`,
			"ServerScriptService.Server": full["ServerScriptService.Server"],
		}
		c := sourceMapCheck(context.Background(), &Env{}, &queryConn{trees: trees}, edit)
		if c.Status != StatusDegraded || !strings.HasPrefix(c.Detail, "5 of the source map's 7 scripts are in this window; 2 are not: ") ||
			!strings.Contains(c.Detail, "ReplicatedStorage.Shared.Outer (src/shared/Outer.luau)") ||
			!strings.Contains(c.Detail, "StarterPlayer.StarterPlayerScripts.Client (src/client/init.client.luau)") ||
			!strings.Contains(c.Fix, "rojo sourcemap default.project.json --output sourcemap.json") {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("no map, no query action", func(t *testing.T) {
		SetSourceMap(nil)
		if c := sourceMapCheck(context.Background(), &Env{}, &queryConn{}, edit); c.Status != StatusNA {
			t.Errorf("no map: %+v", c)
		}
		SetSourceMap(fixtureMap(t))
		if c := sourceMapCheck(context.Background(), &Env{}, &queryConn{}, protocol.SessionInfo{}); c.Status != StatusNA {
			t.Errorf("no query: %+v", c)
		}
	})
}

func TestPathOfNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"ReplicatedStorage", "Shared"}, "ReplicatedStorage.Shared"},
		{[]string{"ReplicatedStorage", "Strings.spec"}, `ReplicatedStorage.Strings\.spec`},
		{[]string{"A", `b[1]\c`}, `A.b\[1]\\c`},
	} {
		if got := pathOfNames(tc.names); got != tc.want {
			t.Errorf("pathOfNames(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
