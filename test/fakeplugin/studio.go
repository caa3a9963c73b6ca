package fakeplugin

import (
	"encoding/json"
	"strings"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// StudioPixels is the 2×2 RGBA image Studio answers screenshots with: red,
// green, blue, and half-transparent white.
var StudioPixels = []byte{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128}

// Studio answers the plugin actions as the real plugin's contract says
// (plugin/README.md), with fixed data: a place named "Place" (placeId 7,
// gameId 8), two log lines, a SpawnLocation, and scripts whose behaviour
// their text picks: containing "error" they fail after printing
// "Starting...", containing "wait" they never finish, anything else prints
// "one" and warns "two" and returns 42 and a Vector3; one script,
// ServerScriptService.Main, for scriptRead.
func Studio(action string, payload json.RawMessage) Reply {
	switch action {
	case "state":
		return Reply{Payload: map[string]any{"state": "Edit", "placeName": "Place", "placeId": 7, "gameId": 8}}
	case "logs":
		var req struct {
			Count int `json:"count"`
		}
		_ = json.Unmarshal(payload, &req)
		return Reply{Payload: map[string]any{"entries": []map[string]any{
			{"level": "Print", "body": "hello", "timestamp": 1.5, "seq": 1},
			{"level": "Warning", "body": "careful", "timestamp": 2.5, "seq": 2},
		}, "total": 2, "bufferCapacity": 2000}}
	case "subscribe": // the events now sent, as the plugin answers
		return Reply{Payload: map[string]any{"events": []string{"log", "state"}}}
	case "unsubscribe":
		return Reply{Payload: map[string]any{"events": []string{"state"}}}
	case "query":
		var req struct {
			Path string `json:"path"`
		}
		_ = json.Unmarshal(payload, &req)
		if strings.TrimPrefix(req.Path, "game.") != "Workspace.SpawnLocation" {
			return Reply{Err: &protocol.Error{Code: protocol.CodeInstanceNotFound, Message: "No instance found at path: game." + strings.TrimPrefix(req.Path, "game.")}}
		}
		return Reply{Payload: map[string]any{"instance": map[string]any{
			"name": "SpawnLocation", "className": "SpawnLocation", "path": "game.Workspace.SpawnLocation", "childCount": 0,
			"properties": map[string]any{"Anchored": true, "Position": map[string]any{"$type": "Vector3", "value": []float64{0, 4, 0}}},
			"attributes": map[string]any{},
		}}}
	case "exec":
		var req struct {
			Script string `json:"script"`
		}
		_ = json.Unmarshal(payload, &req)
		line := func(level, body string) map[string]any { return map[string]any{"level": level, "body": body} }
		switch {
		case strings.Contains(req.Script, "error"):
			return Reply{Progress: []any{line("Print", "Starting...")},
				Payload: map[string]any{"success": false, "error": "Script:2: boom", "logs": []any{line("Print", "Starting...")}}}
		case strings.Contains(req.Script, "wait"):
			return Reply{Stall: true}
		case strings.Contains(req.Script, "flood"): // past the per-exec output cap
			return Reply{Progress: []any{line("Print", "kept")},
				Payload: map[string]any{"success": true, "logs": []any{line("Print", "kept")}, "droppedLogs": 12345}}
		}
		return Reply{Progress: []any{line("Print", "one"), line("Warning", "two")},
			Payload: map[string]any{"success": true, "logs": []any{line("Print", "one"), line("Warning", "two")},
				"returnValues": []any{42, map[string]any{"$type": "Vector3", "value": []float64{1, 2, 3}}}}}
	case "scriptRead":
		var req struct {
			Path string `json:"path"`
		}
		_ = json.Unmarshal(payload, &req)
		if strings.TrimPrefix(req.Path, "game.") != "ServerScriptService.Main" {
			return Reply{Err: &protocol.Error{Code: protocol.CodeInstanceNotFound, Message: "No instance found at path: game." + strings.TrimPrefix(req.Path, "game.")}}
		}
		return Reply{Payload: map[string]any{"path": "game.ServerScriptService.Main", "className": "Script", "hash": "0123456789abcdef",
			"lineCount": 3, "fromEditor": true, "source": "local a = 1\nprint(a)\n"}}
	case "screenshot":
		return Reply{Payload: map[string]any{"width": 2, "height": 2, "format": "rgba8", "data": StudioPixels}, ChunkSize: 8}
	}
	return Reply{Err: protocol.Errorf(protocol.CodeUnknownAction, "unknown action %q", action)}
}
