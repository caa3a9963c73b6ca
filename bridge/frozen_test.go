package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// Issue 25 item 12: a script that never yields freezes Studio, heartbeats
// included. The exec's caller learns that, not just that the connection
// was lost; a plugin whose network went (pings answered until then) still
// gets the unknown-outcome wording (TestV2GraceExpiryAnswersUnknownOutcome).
func TestFrozenExecSaysTheScriptHasNotYielded(t *testing.T) {
	// Not parallel: a heartbeat of tens of milliseconds is a wall-clock
	// contract a busy neighbour would break.
	h := newV2Host(t, HostConfig{Heartbeat: 50 * time.Millisecond, ResumeGrace: 200 * time.Millisecond})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, NoReconnect: true, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Stall: true} }},
	}})
	client := connectWith(t, h.port, Options{})
	sid := ids[protocol.ContextEdit]
	errc := make(chan error, 1)
	go func() {
		_, err := client.Call(context.Background(), sid, "exec", json.RawMessage(`{"script":"while true do end"}`), CallOptions{Timeout: 30 * time.Second})
		errc <- err
	}()
	eventually(t, "the exec to start", func() bool { return w.Runs(protocol.ContextEdit, "exec") == 1 })
	w.Freeze()
	err := <-errc
	if codeOf(err) != protocol.CodeUnknownOutcome || !strings.Contains(err.Error(), "the script has not yielded for") ||
		!strings.Contains(err.Error(), "Studio is frozen until it does") {
		t.Fatalf("exec in a frozen Studio: %v (code %q); want UNKNOWN_OUTCOME saying the script has not yielded", err, codeOf(err))
	}
}
