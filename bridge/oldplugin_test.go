package bridge

import (
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestV1HelloRejected: a plugin of plugin protocol 1 (one socket per
// DataModel, never released) says hello exactly as it did, over a real
// socket. The host answers a reject that tells the user to run
// `studio-bridge install-plugin` (the plugin prints a reject's message in
// Studio's Output), closes with 1008, registers no session, and goes on
// serving everyone else.
func TestV1HelloRejected(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	for _, hello := range []string{
		// Every field a v1 plugin sent, session fields included.
		`{"type":"hello","protocolVersions":[1],"pluginVersion":"0.3.1","instanceId":"old-studio","context":"edit",` +
			`"placeName":"Baseplate","placeId":1818,"gameId":77,"state":"Edit","capabilities":["exec","logs"],` +
			`"previousSessionId":"0b6c8a4e-6f1e-4a53-9a57-0c1f7b9d2a10","resumeSecret":"s3cr3t"}`,
		`{"type":"hello","protocolVersions":[1],"instanceId":"old-server","context":"server"}`,
	} {
		r := openRaw(t, tb.port, protocol.PathPlugin)
		r.write(websocket.MessageText, []byte(hello))
		rej := r.expectReject(protocol.CodeUnsupportedProtocol, "studio-bridge install-plugin", "[1]")
		if rej.Ref != "" {
			t.Fatalf("the socket's reject names a ref: %+v", rej)
		}
		ce := r.expectClose(websocket.StatusPolicyViolation)
		if !strings.HasPrefix(ce.Reason, string(protocol.CodeUnsupportedProtocol)) {
			t.Errorf("close reason %q does not start with the code", ce.Reason)
		}
	}
	if s, _ := tb.host.hub.snapshot(); len(s) != 1 || s[0].SessionID != tb.sid {
		t.Fatalf("a v1 hello left a session behind: %+v", s)
	}
	if h := healthOf(t, tb.port); h.Sessions != 1 {
		t.Fatalf("health lists %d sessions, want the good plugin's only", h.Sessions)
	}
	tb.assertServing(t)
}
