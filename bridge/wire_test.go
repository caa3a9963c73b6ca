package bridge

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestClientWelcomeWire keeps the host's pre-encoded welcome identical to
// protocol.ClientWelcome on the wire.
func TestClientWelcomeWire(t *testing.T) {
	t.Parallel()
	sessions := []protocol.SessionInfo{{SessionID: "s", InstanceID: "A", Context: protocol.ContextEdit,
		State: protocol.StatePlay, Capabilities: []string{"exec"}, ConnectedAt: time.Unix(1, 0).UTC()}}
	raw, _ := json.Marshal(sessions)
	data, err := protocol.Encode(clientWelcomeWire{ProtocolVersion: 1, ClientID: "c", HostVersion: "v",
		HostStartedAt: 5, HeartbeatIntervalMs: 7, Sessions: raw})
	if err != nil {
		t.Fatal(err)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.ClientWelcome{ProtocolVersion: 1, ClientID: "c", HostVersion: "v", HostStartedAt: 5,
		HeartbeatIntervalMs: 7, Sessions: sessions}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if a, b := reflect.TypeOf(clientWelcomeWire{}).NumField(), reflect.TypeOf(protocol.ClientWelcome{}).NumField(); a != b {
		t.Fatalf("clientWelcomeWire has %d fields, ClientWelcome %d", a, b)
	}
}
