package fakeplugin_test

import (
	"encoding/json"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/protocol/transcript"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// TestStudioAnswersFollowTheContract: every answer the fake Studio gives
// decodes strictly into the action's result type (package actions) and
// encodes back unchanged, as the real plugin's do (the transcripts), so
// tests built on the fake see the contract's shapes.
func TestStudioAnswersFollowTheContract(t *testing.T) {
	for _, tt := range []struct {
		action, payload string
	}{
		{actions.State, `{}`},
		{actions.Logs, `{"count":50,"direction":"tail","includeInternal":false}`},
		{actions.Subscribe, `{"events":["log"],"includeInternal":true}`},
		{actions.Unsubscribe, `{"events":["log"],"includeInternal":true}`},
		{actions.Query, `{"path":"Workspace.SpawnLocation","depth":0,"properties":null,"includeAttributes":false,"children":false,"listServices":false}`},
		{actions.Exec, `{"script":"print(1)"}`},
		{actions.Exec, `{"script":"error('x')"}`},
		{actions.Exec, `{"script":"flood"}`},
		{actions.ScriptRead, `{"path":"ServerScriptService.Main"}`},
		{actions.Screenshot, `{}`},
	} {
		r := fakeplugin.Studio(tt.action, json.RawMessage(tt.payload))
		if r.Err != nil {
			t.Errorf("%s %s: %v", tt.action, tt.payload, r.Err)
			continue
		}
		raw, err := json.Marshal(r.Payload)
		if err != nil {
			t.Fatal(err)
		}
		_, res, ok := actions.Shape(tt.action)
		if !ok {
			t.Fatalf("%s: not an action", tt.action)
		}
		if err := transcript.RoundTrip(raw, res); err != nil {
			t.Errorf("%s %s: %v", tt.action, tt.payload, err)
		}
		for _, p := range r.Progress {
			pr, _ := json.Marshal(p)
			if err := transcript.RoundTrip(pr, &actions.LogLine{}); err != nil {
				t.Errorf("%s progress: %v", tt.action, err)
			}
		}
	}
}
