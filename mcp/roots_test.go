package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/sourcemap"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestStudioTestPathsStayInTheClientsRoot: studio_test's paths are the
// project's, and the project is the client's root (roots/list) when
// neither --project nor STUDIO_BRIDGE_PROJECT names one: a relative path
// is read from there, not from the server's working directory, and a path
// outside it is an input error naming the root (issue #22 item 5).
func TestStudioTestPathsStayInTheClientsRoot(t *testing.T) {
	w := newWorld(t)
	root := kit.Files(t, map[string]string{"tests/a.spec.luau": "return function() end -- from the client's root"})
	elsewhere := kit.Files(t, map[string]string{"tests/b.spec.luau": "return function() end -- from the working directory"})
	t.Chdir(elsewhere)
	var sent string
	kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit, PlaceName: "Place",
		Handler: func(action string, payload json.RawMessage) fakeplugin.Reply {
			var req struct {
				Script string `json:"script"`
			}
			_ = json.Unmarshal(payload, &req)
			sent = req.Script
			return fakeplugin.Reply{Payload: map[string]any{"success": true, "logs": []any{},
				"returnValues": []any{`{"tests":[{"name":"a","status":"passed","file":"tests/a.spec.luau"}],"durationMs":1,"names":{}}`}}}
		}})

	s := w.server(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	//lint:ignore SA1019 the client side of the roots the server reads (mcp/roots.go says why they stay)
	c.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(root)}).String()})
	// roots/list is a request a server may send up to MCP 2025-11-25 (the
	// version today's clients speak); later versions deprecate roots
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})

	res := call(t, cs, "studio_test", map[string]any{"paths": []string{"tests"}})
	if res.IsError {
		t.Fatalf("error: %+v", res.Content)
	}
	if !strings.Contains(sent, "from the client's root") || strings.Contains(sent, "from the working directory") {
		t.Fatalf("the specs sent are not the client root's:\n%.300s", sent)
	}
	res = call(t, cs, "studio_test", map[string]any{"paths": []string{filepath.Join(elsewhere, "tests")}})
	if !res.IsError {
		t.Fatal("a path outside the client's root was read")
	}
	if b, _ := json.Marshal(res.Content); !strings.Contains(string(b), "is outside the project root") {
		t.Fatalf("error does not say why: %s", b)
	}
}

// With neither --project nor STUDIO_BRIDGE_PROJECT, the source map is the
// client's root's (roots/list, asked once): an exec error's locations are
// the client's files, shown from its root, though the server runs
// elsewhere; with --project, or from a client that did not declare roots,
// no roots are asked (issue 24).
func TestSourceMapFromTheClientsRoot(t *testing.T) {
	defer commands.SetSourceMap(nil)
	root := kit.Files(t, map[string]string{
		"sourcemap.json": `{"name":"Game","className":"DataModel","children":[{"name":"ReplicatedStorage","className":"ReplicatedStorage","children":[` +
			`{"name":"Shared","className":"Folder","children":[{"name":"Inner","className":"ModuleScript","filePaths":["src/shared/Inner.luau"]}]}]}]}`,
		"src/shared/Inner.luau": "return nil",
	})
	elsewhere := kit.Files(t, map[string]string{"README.md": "no map here"})
	t.Chdir(elsewhere)
	const failure = "ReplicatedStorage.Shared.Inner:5: attempt to index nil with 'field'"
	var roots atomic.Int32
	for _, tc := range []struct {
		name    string
		project string // --project
		noRoots bool   // the client does not declare the roots capability
		file    string // the location's file; "" is none
		asked   int32  // roots/list requests
	}{
		{"the client's root", "", false, "src/shared/Inner.luau", 1},
		{"--project wins", elsewhere, false, "", 0},
		{"a client without roots is not asked", "", true, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			roots.Store(0)
			commands.ConfigureSourceMap(context.Background(), sourcemap.Options{Root: elsewhere, Getenv: func(string) string { return "" }}, func(s string) { t.Errorf("note: %s", s) })
			w := newWorld(t)
			kit.Plugin(t, fakeplugin.Config{Port: w.port, HTTPClient: w.http, InstanceID: "A", Context: protocol.ContextEdit, State: protocol.StateEdit, PlaceName: "Place",
				Handler: func(string, json.RawMessage) fakeplugin.Reply {
					return fakeplugin.Reply{Payload: map[string]any{"success": false, "error": failure, "logs": []any{},
						"traceback": "ReplicatedStorage.Shared.Inner:5 function read\nStudioBridgeExec:1\n"}}
				}})
			s := w.server(t, Options{Project: tc.project})
			ctx, cancel := context.WithCancel(context.Background())
			st, ct := sdk.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			var copts *sdk.ClientOptions
			if tc.noRoots {
				copts = &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}
			}
			c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
			//lint:ignore SA1019 the client side of the roots the server reads (mcp/roots.go says why they stay)
			c.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(root)}).String()})
			c.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
				return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
					if method == "roots/list" {
						roots.Add(1)
					}
					return next(ctx, method, req)
				}
			})
			cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cs.Close()
				ss.Wait()
				cancel()
			})
			for range 2 { // the second call asks no roots again
				res := call(t, cs, "studio_exec", map[string]any{"script": "require(game.ReplicatedStorage.Shared.Inner)"})
				raw, _ := json.Marshal(res.StructuredContent)
				var out struct {
					Locations []sourcemap.Location `json:"locations"`
				}
				if err := json.Unmarshal(raw, &out); err != nil || len(out.Locations) < 2 {
					t.Fatalf("result %s: %v", raw, err)
				}
				for _, l := range out.Locations[:2] {
					if l.Path != "ReplicatedStorage.Shared.Inner" || l.Line != 5 || l.File != tc.file {
						t.Errorf("location %+v, want file %q", l, tc.file)
					}
				}
			}
			if n := roots.Load(); n != tc.asked {
				t.Errorf("roots/list asked %d times, want %d", n, tc.asked)
			}
		})
	}
}
