package bridge

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// TestPluginGoodbyeEndsItsSessionsAtOnce: a plugin that closes its socket
// on purpose (the Bridge button off, an unload: goodbye, then the close)
// ends every session on it at once, even with an hour's resume grace, and
// the next call says the session is gone instead of waiting for the grace.
func TestPluginGoodbyeEndsItsSessionsAtOnce(t *testing.T) {
	h := newV2Host(t, HostConfig{ResumeGrace: time.Hour})
	reply := func(string, json.RawMessage) fakeplugin.Reply { return fakeplugin.Reply{Payload: "ok"} }
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, Sessions: []fakeplugin.SessionConfig{
		{Context: protocol.ContextEdit, Handler: reply},
		{Context: protocol.ContextServer, Handler: reply},
	}})
	w.Close()
	for _, sid := range ids {
		eventually(t, "the session to end with its socket", func() bool { return !hasSession(h.Host, sid) })
		_, err := h.callT(t, sid, "exec", map[string]string{"script": "print(1)"})
		if code := protocol.CodeOf(err); code != protocol.CodeSessionNotFound && code != protocol.CodeSessionDisconnected {
			t.Fatalf("a call to session %s after the goodbye: %v; want SESSION_NOT_FOUND", sid, err)
		}
	}
}
