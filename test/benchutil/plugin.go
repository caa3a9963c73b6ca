package benchutil

import (
	"encoding/json"

	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// StateReply is what a benchmark's plugin answers to "state": a small,
// typical payload. The MCP floor server (test/bench/floor) answers the same.
var StateReply = json.RawMessage(`{"state":"Edit","placeName":"Benchmark Place","placeId":1818,"gameId":2020}`)

// StateHandler is a fake plugin that answers every action at once with
// StateReply.
func StateHandler(string, json.RawMessage) fakeplugin.Reply {
	return fakeplugin.Reply{Payload: StateReply}
}
