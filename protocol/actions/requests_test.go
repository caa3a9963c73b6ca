package actions

import (
	"encoding/json"
	"testing"
)

// TestRequestBytes pins the payloads package commands sends, byte for
// byte: they are what the plugin (plugin/src/Actions/*.luau) reads, and
// what the host sent before these types moved here.
func TestRequestBytes(t *testing.T) {
	no := false
	for _, tt := range []struct {
		name string
		v    any
		want string
	}{
		{"state", StateRequest{}, `{}`},
		{"screenshot", ScreenshotRequest{}, `{}`},
		{"exec", ExecRequest{Script: "print(1)"}, `{"script":"print(1)"}`},
		{"exec, named chunk", ExecRequest{Script: "x", ChunkName: "run.luau"}, `{"script":"x","chunkName":"run.luau"}`},
		{"exec, the test runner's", ExecRequest{Script: "x", ChunkName: "StudioBridgeTest", History: &no}, `{"script":"x","chunkName":"StudioBridgeTest","history":false}`},
		{"logs", LogsRequest{Count: 50, Direction: "tail"}, `{"count":50,"direction":"tail","includeInternal":false}`},
		{"logs, levels", LogsRequest{Count: 1, Direction: "head", Levels: []string{"Error"}, IncludeInternal: true}, `{"count":1,"direction":"head","levels":["Error"],"includeInternal":true}`},
		{"subscribe", SubscribeRequest{Events: []string{EventLog}, IncludeInternal: true}, `{"events":["log"],"includeInternal":true}`},
		{"query", QueryRequest{Path: "Workspace", Depth: 1}, `{"path":"Workspace","depth":1,"properties":null,"includeAttributes":false,"children":false,"listServices":false}`},
		{"play start", PlayRequest{Action: PlayStart, Mode: ModeRun}, `{"action":"start","mode":"run"}`},
		{"play stop", PlayRequest{Action: PlayStop}, `{"action":"stop"}`},
		{"probe", ProbeRequest{Active: true}, `{"active":true}`},
	} {
		got, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestAllNames: every action is listed once.
func TestAllNames(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range All {
		if n == "" || seen[n] {
			t.Errorf("action %q is empty or listed twice", n)
		}
		seen[n] = true
	}
	if len(All) != 12 {
		t.Errorf("All lists %d actions; the plugin handles 12 (plugin/tests/Main.spec.luau)", len(All))
	}
}

// TestShapes: every action has its request and result types.
func TestShapes(t *testing.T) {
	for _, n := range All {
		if req, res, ok := Shape(n); !ok || req == nil || res == nil {
			t.Errorf("Shape(%q): no types", n)
		}
	}
	if _, _, ok := Shape("nope"); ok {
		t.Error(`Shape("nope") claims an action`)
	}
}
