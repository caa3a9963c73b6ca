package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var sampleTime = time.Date(2025, 3, 14, 15, 9, 26, 535000000, time.UTC)

var sampleSession = SessionInfo{
	SessionID:     "0b6c8a4e-6f1e-4a53-9a57-0c1f7b9d2a10",
	InstanceID:    "studio-7f3a",
	Context:       ContextServer,
	PlaceName:     "Obby ünïcødé 🎮",
	PlaceID:       1818,
	GameID:        9007199254740993, // above 2^53: must survive as an integer
	State:         StatePlay,
	PluginVersion: "0.3.1",
	Capabilities:  []string{"exec", "screenshot"},
	ConnectedAt:   sampleTime,
}

// samples holds at least one fully populated value of every message type.
// Payloads are compact JSON without HTML characters so that a decoded
// message is reflect.DeepEqual to its original.
var samples = []Message{
	Hello{ProtocolVersions: []int{2}, PluginVersion: "0.3.1", InstanceID: "studio-7f3a"},
	Hello{ProtocolVersions: []int{2}, InstanceID: "B"},
	Hello{ProtocolVersions: []int{2}, InstanceID: "C", Nonce: "bm9uY2Utb2YtdGhlLXBsdWdpbg"},
	Pair{Proof: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	Reject{Code: CodeUnsupportedProtocol, Message: "no common version"},
	Request{ID: "h-1", Action: "exec", Payload: json.RawMessage(`{"source":"print(1)"}`)},
	Request{ID: "c-9", Action: "state", SessionID: sampleSession.SessionID, TimeoutMs: 5000},
	Request{ID: "c-10", Action: "sessions"},
	Response{ID: "h-1", OK: true, Payload: json.RawMessage(`{"success":true,"output":["1"]}`)},
	Response{ID: "h-2", OK: true, Chunks: 3},
	Response{ID: "h-3", OK: false, Error: &Error{Code: CodeInstanceNotFound, Message: "no game.Workspace.Nope", Details: json.RawMessage(`{"path":"game.Workspace.Nope"}`)}},
	Response{ID: "h-4", OK: true},
	Progress{ID: "h-1", Payload: json.RawMessage(`{"level":"Output","body":"1"}`)},
	Chunk{ID: "h-2", Seq: 0, Data: `{"png":"iVBOR`},
	Chunk{ID: "h-2", Seq: 2, Data: `"é🎮\"\\\n`},
	Cancel{ID: "h-1"},
	Event{Event: "log", Seq: 42, Payload: json.RawMessage(`{"level":"Warning","body":"careful","timestamp":1741964966.5}`)},
	Event{Event: "state", SessionID: sampleSession.SessionID, Payload: json.RawMessage(`{"state":"Play"}`)},
	Ping{T: 1741964966535},
	Ping{},
	Pong{T: 1741964966535},
	ErrorNotice{Code: CodeUnknownRequest, Message: "response for unknown or finished request", Ref: "h-77"},
	Goodbye{Reason: "host shutting down"},
	ClientHello{ProtocolVersions: []int{1}, ClientVersion: "0.3.1", PID: 4242},
	ClientWelcome{ProtocolVersion: 1, ClientID: "c0ffee", HostVersion: "0.3.1", HostStartedAt: 1741964966000, HeartbeatIntervalMs: 5000, Sessions: []SessionInfo{sampleSession}},
	ClientWelcome{ProtocolVersion: 1, ClientID: "c0ffee", Sessions: []SessionInfo{}},
	ClientHello{ProtocolVersions: []int{1}, ClientVersion: "0.3.1", PID: 4242, Returning: []string{sampleSession.SessionID}},
	ClientHello{ProtocolVersions: []int{3}, ClientVersion: "0.4.0", PID: 4242, Nonce: "q0b3e1F0Yc2fQz3vKpW9dXl8M5rT2aJc7HnUoS4iE6g"},
	ClientChallenge{Nonce: "Zx3q9kVb1mWc4T7rYp2LsHd8NfA0uGe5JiKoQ6wRtEy", Proof: "3nJ1c8qv0aR5yT2LmX9bW4kH7dF6sP0gE1uZiOoNwQc"},
	ClientProof{Proof: "Vb8mQ2wE5rT1yU7iO4pA9sD3fG6hJ0kL2zX5cN8bM1q"},
	ClientWelcome{ProtocolVersion: 1, ClientID: "c0ffee", Sessions: []SessionInfo{}, Awaiting: []string{sampleSession.SessionID}},
	ClientWelcome{ProtocolVersion: 1, ClientID: "c0ffee", Sessions: []SessionInfo{sampleSession}, Settled: true},
	SessionEvent{Kind: SessionConnected, Session: sampleSession},
	Watch{SessionID: sampleSession.SessionID},
	Unwatch{SessionID: sampleSession.SessionID},
	HostTransfer{Reason: "serve stopped"},
	// The plugin's socket and session frames.
	Welcome{ProtocolVersion: 2, HeartbeatIntervalMs: 5000, MaxFrameBytes: PluginMaxFrameBytes, MaxSessionFrameBytes: MaxSessionFrameBytes, MaxSessions: MaxSessionsPerSocket, MaxRequestBytes: MaxRequestPayloadBytes, ResumeGraceMs: 10000, HostVersion: "0.4.0"},
	Attach{Ref: "server", InstanceID: "studio-7f3a", Context: ContextServer, PlaceName: "Obby", PlaceID: 1818, GameID: 77, State: StateServer, Capabilities: []string{"exec"}, PluginVersion: "0.4.0", PreviousSessionID: sampleSession.SessionID, ResumeSecret: "k3y"},
	Attached{Ref: "server", SessionID: sampleSession.SessionID, ResumeSecret: "k3y", Resumed: true, Awaiting: []string{"4", "5"}},
	Detach{SessionID: sampleSession.SessionID, Reason: "Play stopped"},
	Ack{SessionID: sampleSession.SessionID, ID: "h-1"},
	Replaced{SessionID: sampleSession.SessionID, Reason: "moved"},

	Reject{Ref: "client", Code: CodeInvalidAttach, Message: "bad context"},
	Request{SessionID: sampleSession.SessionID, ID: "h-5", Action: "exec", Chunks: 16},
	Response{SessionID: sampleSession.SessionID, ID: "h-5", OK: true, Payload: json.RawMessage(`{"success":true}`)},
	Progress{SessionID: sampleSession.SessionID, ID: "h-5", Payload: json.RawMessage(`{"body":"x"}`)},
	Chunk{SessionID: sampleSession.SessionID, ID: "h-5", Seq: 1, Data: "abc"},
	Cancel{SessionID: sampleSession.SessionID, ID: "h-5"},
	Ping{SessionID: sampleSession.SessionID, T: 5},
	Pong{SessionID: sampleSession.SessionID, T: 5},
	ErrorNotice{SessionID: sampleSession.SessionID, Code: CodeSessionNotFound, Message: "no such session on this socket", Ref: sampleSession.SessionID},
	Goodbye{SessionID: sampleSession.SessionID, Reason: "heartbeat timeout"},
}

func TestSamplesCoverEveryType(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range samples {
		seen[m.Type()] = true
	}
	for typ, newMsg := range registry {
		if !seen[typ] {
			t.Errorf("no sample of message type %q", typ)
		}
		if got := deref(newMsg()).Type(); got != typ {
			t.Errorf("registry[%q] builds a %q", typ, got)
		}
	}
	if len(seen) != len(registry) {
		t.Errorf("samples have %d types, registry %d", len(seen), len(registry))
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for i, m := range samples {
		t.Run(fmt.Sprintf("%02d-%s", i, m.Type()), func(t *testing.T) {
			data, err := Encode(m)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			prefix := `{"type":"` + m.Type() + `"`
			if !bytes.HasPrefix(data, []byte(prefix)) {
				t.Fatalf("encoding does not start with %s: %s", prefix, data)
			}
			if !json.Valid(data) {
				t.Fatalf("encoding is not valid JSON: %s", data)
			}
			if keys := topLevelKeys(t, data); keys[0] != "type" || count(keys, "type") != 1 {
				t.Fatalf("keys %v: want \"type\" first and once", keys)
			}
			got, err := Decode(data)
			if err != nil {
				t.Fatalf("Decode(%s): %v", data, err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("round trip changed the message\n got: %#v\nwant: %#v\nwire: %s", got, m, data)
			}
		})
	}
}

func TestEncodeEmptyMessage(t *testing.T) {
	for _, m := range []Message{Ping{}, Pong{}} {
		data, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"type":"` + m.Type() + `"}`; string(data) != want {
			t.Errorf("Encode(%#v) = %s, want %s", m, data, want)
		}
	}
}

func TestEncodeWireNames(t *testing.T) {
	// The field names are the contract: pin a few encodings exactly.
	tests := []struct {
		m    Message
		want string
	}{
		{Request{ID: "1", Action: "state"}, `{"type":"request","id":"1","action":"state"}`},
		{Response{ID: "1", OK: true, Chunks: 2}, `{"type":"response","id":"1","ok":true,"chunks":2}`},
		{Response{ID: "1", OK: false, Error: &Error{Code: CodeBusy, Message: "busy"}}, `{"type":"response","id":"1","ok":false,"error":{"code":"BUSY","message":"busy"}}`},
		{Chunk{ID: "1", Seq: 0, Data: ""}, `{"type":"chunk","id":"1","seq":0,"data":""}`},
		{Event{Event: "log", Seq: 3, Payload: json.RawMessage(`{}`)}, `{"type":"event","event":"log","seq":3,"payload":{}}`},
		{Ping{T: 7}, `{"type":"ping","t":7}`},
		{ErrorNotice{Code: CodeMalformedFrame, Message: "x"}, `{"type":"error","code":"MALFORMED_FRAME","message":"x"}`},
		{Hello{ProtocolVersions: []int{2}, InstanceID: "A"}, `{"type":"hello","protocolVersions":[2],"pluginVersion":"","instanceId":"A"}`},
		{Watch{SessionID: "s"}, `{"type":"watch","sessionId":"s"}`},
		{HostTransfer{Reason: "bye"}, `{"type":"host-transfer","reason":"bye"}`},
		// Client protocol v2: the token.
		{ClientHello{ProtocolVersions: []int{2, 1}, ClientVersion: "1", PID: 4, Token: "tok"}, `{"type":"client-hello","protocolVersions":[2,1],"clientVersion":"1","pid":4,"token":"tok"}`},
		// The plugin's session frames (PROTOCOL.md section 12).
		{Request{SessionID: "s", ID: "1", Action: "exec", Chunks: 3}, `{"type":"request","id":"1","action":"exec","sessionId":"s","chunks":3}`},
		{Response{SessionID: "s", ID: "1", OK: true}, `{"type":"response","sessionId":"s","id":"1","ok":true}`},
		{Ack{SessionID: "s", ID: "1"}, `{"type":"ack","sessionId":"s","id":"1"}`},
		{Ping{SessionID: "s", T: 7}, `{"type":"ping","sessionId":"s","t":7}`},
		{Attached{Ref: "edit", SessionID: "s", ResumeSecret: "k", Resumed: true, Awaiting: []string{"4"}}, `{"type":"attached","ref":"edit","sessionId":"s","resumeSecret":"k","resumed":true,"awaiting":["4"]}`},
		{Attached{Ref: "edit", SessionID: "s", ResumeSecret: "k"}, `{"type":"attached","ref":"edit","sessionId":"s","resumeSecret":"k","resumed":false}`},
		{Replaced{SessionID: "s", Reason: "r"}, `{"type":"replaced","sessionId":"s","reason":"r"}`},
		{Reject{Ref: "server", Code: CodeTooManySessions, Message: "m"}, `{"type":"reject","ref":"server","code":"TOO_MANY_SESSIONS","message":"m"}`},
		{Goodbye{SessionID: "s", Reason: "heartbeat timeout"}, `{"type":"goodbye","sessionId":"s","reason":"heartbeat timeout"}`},
	}
	for _, tt := range tests {
		data, err := Encode(tt.m)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != tt.want {
			t.Errorf("Encode(%#v)\n got %s\nwant %s", tt.m, data, tt.want)
		}
	}
}

func TestEncodeInvalidPayload(t *testing.T) {
	_, err := Encode(Request{ID: "1", Action: "x", Payload: json.RawMessage(`{"a":`)})
	if err == nil {
		t.Fatal("Encode accepted an invalid raw payload")
	}
	if !strings.Contains(err.Error(), "request") {
		t.Errorf("error %q does not name the message type", err)
	}
}

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Message
	}{
		{"type not first", `{"id":"1","type":"cancel"}`, Cancel{ID: "1"}},
		{"unknown fields ignored", `{"type":"cancel","id":"1","future":{"x":[1,2]}}`, Cancel{ID: "1"}},
		{"whitespace", " \n\t{ \"type\" : \"ping\" , \"t\" : 5 }\r\n", Ping{T: 5}},
		{"ping without t", `{"type":"ping"}`, Ping{}},
		{"pong null t", `{"type":"pong","t":null}`, Pong{}},
		{"response ok without payload", `{"type":"response","id":"1","ok":true}`, Response{ID: "1", OK: true}},
		{"response null error when ok", `{"type":"response","id":"1","ok":true,"error":null}`, Response{ID: "1", OK: true}},
		{"payload any JSON", `{"type":"progress","id":"1","payload":[1,"a",null,{"b":true}]}`, Progress{ID: "1", Payload: json.RawMessage(`[1,"a",null,{"b":true}]`)}},
		{"payload null kept", `{"type":"progress","id":"1","payload":null}`, Progress{ID: "1", Payload: json.RawMessage(`null`)}},
		{"chunk seq zero", `{"type":"chunk","id":"1","seq":0,"data":"x"}`, Chunk{ID: "1", Data: "x"}},
		{"chunk empty data", `{"type":"chunk","id":"1","seq":4}`, Chunk{ID: "1", Seq: 4}},
		{"big int64", `{"type":"event","event":"log","seq":9223372036854775807}`, Event{Event: "log", Seq: 9223372036854775807}},
		{"escaped strings", `{"type":"goodbye","reason":"a\u0000b\"\\ \ud83c\udfae"}`, Goodbye{Reason: "a\x00b\"\\ 🎮"}},
		{"empty reason", `{"type":"goodbye"}`, Goodbye{}},
		{"hello minimal", `{"type":"hello","protocolVersions":[2],"instanceId":"A"}`, Hello{ProtocolVersions: []int{2}, InstanceID: "A"}},
		{"hello of an older plugin: its session fields are ignored", `{"type":"hello","protocolVersions":[2,1],"instanceId":"A","context":"edit","placeName":"P","state":"Edit","resumeSecret":"s"}`, Hello{ProtocolVersions: []int{2, 1}, InstanceID: "A"}},
		{"client-welcome null sessions", `{"type":"client-welcome","protocolVersion":1,"clientId":"c","sessions":null}`, ClientWelcome{ProtocolVersion: 1, ClientID: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Decode(%s)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	const (
		bad     = CodeMalformedFrame
		unknown = CodeUnknownMessage
	)
	tests := []struct {
		name    string
		in      string
		code    Code
		message string // substring of the error message, if set
	}{
		// Not a JSON object.
		{"empty", ``, bad, "not a JSON object"},
		{"whitespace only", " \n", bad, "not a JSON object"},
		{"garbage", `hello there`, bad, "not a JSON object"},
		{"truncated", `{"type":"ping"`, bad, "not a JSON object"},
		{"trailing garbage", `{"type":"ping"} x`, bad, ""},
		{"two objects", `{"type":"ping"}{"type":"ping"}`, bad, ""},
		{"array", `[{"type":"ping"}]`, bad, "not a JSON object"},
		{"string", `"ping"`, bad, ""},
		{"number", `42`, bad, ""},
		{"true", `true`, bad, ""},
		{"single quotes", `{'type':'ping'}`, bad, ""},
		{"trailing comma", `{"type":"ping",}`, bad, ""},
		// No usable type.
		{"null", `null`, bad, `no "type"`},
		{"empty object", `{}`, bad, `no "type"`},
		{"missing type", `{"id":"1"}`, bad, `no "type"`},
		{"empty type", `{"type":""}`, bad, `no "type"`},
		{"null type", `{"type":null}`, bad, `no "type"`},
		{"numeric type", `{"type":5}`, bad, ""},
		{"object type", `{"type":{"name":"ping"}}`, bad, ""},
		// Unknown type.
		{"unknown type", `{"type":"nope"}`, unknown, `"nope"`},
		{"unknown type near miss", `{"type":"clienthello"}`, unknown, "clienthello"},
		{"unknown type with space", `{"type":"ping "}`, unknown, ""},
		// validate(): required fields.
		{"request no id", `{"type":"request","action":"state"}`, bad, `request needs "id" and "action"`},
		{"request empty id", `{"type":"request","id":"","action":"state"}`, bad, `request needs`},
		{"request no action", `{"type":"request","id":"1"}`, bad, `request needs`},
		{"request empty action", `{"type":"request","id":"1","action":""}`, bad, `request needs`},
		{"response no id", `{"type":"response","ok":true}`, bad, `response needs "id"`},
		{"response not ok without error", `{"type":"response","id":"1","ok":false}`, bad, `needs "error"`},
		{"response ok missing means false", `{"type":"response","id":"1","payload":{}}`, bad, `needs "error"`},
		{"response not ok null error", `{"type":"response","id":"1","ok":false,"error":null}`, bad, `needs "error"`},
		{"response negative chunks", `{"type":"response","id":"1","ok":true,"chunks":-1}`, bad, `"chunks" must not be negative`},
		{"progress no id", `{"type":"progress","payload":{}}`, bad, `progress needs "id"`},
		{"chunk no id", `{"type":"chunk","seq":0,"data":"x"}`, bad, `chunk needs`},
		{"chunk negative seq", `{"type":"chunk","id":"1","seq":-1,"data":"x"}`, bad, `non-negative "seq"`},
		{"cancel no id", `{"type":"cancel"}`, bad, `cancel needs "id"`},
		{"event no event", `{"type":"event","payload":{}}`, bad, `event needs "event"`},
		{"session-event no kind", `{"type":"session-event","session":{"sessionId":"s"}}`, bad, `session-event needs`},
		{"session-event no session", `{"type":"session-event","kind":"connected"}`, bad, `session-event needs`},
		{"session-event empty session id", `{"type":"session-event","kind":"connected","session":{"sessionId":""}}`, bad, `session-event needs`},
		{"watch no session", `{"type":"watch"}`, bad, `watch needs "sessionId"`},
		{"unwatch no session", `{"type":"unwatch","sessionId":""}`, bad, `unwatch needs "sessionId"`},
		{"session-event message", `{"type":"session-event","kind":"connected"}`, bad, `session-event needs "kind" and "session.sessionId"`},
		{"attached no ref", `{"type":"attached","sessionId":"s"}`, bad, `attached needs "ref" and "sessionId"`},
		{"attached no session", `{"type":"attached","ref":"edit"}`, bad, `attached needs "ref" and "sessionId"`},
		{"detach no session", `{"type":"detach"}`, bad, `detach needs "sessionId"`},
		{"ack no id", `{"type":"ack","sessionId":"s"}`, bad, `ack needs "sessionId" and "id"`},
		{"ack no session", `{"type":"ack","id":"1"}`, bad, `ack needs "sessionId" and "id"`},
		// Wrong field types.
		{"request numeric id", `{"type":"request","id":1,"action":"state"}`, bad, "bad request frame"},
		{"request timeout string", `{"type":"request","id":"1","action":"state","timeoutMs":"5s"}`, bad, "bad request frame"},
		{"response ok string", `{"type":"response","id":"1","ok":"yes"}`, bad, "bad response frame"},
		{"response error string", `{"type":"response","id":"1","ok":false,"error":"BUSY"}`, bad, "bad response frame"},
		{"response chunks float", `{"type":"response","id":"1","ok":true,"chunks":1.5}`, bad, "bad response frame"},
		{"chunk seq string", `{"type":"chunk","id":"1","seq":"0","data":"x"}`, bad, "bad chunk frame"},
		{"chunk data object", `{"type":"chunk","id":"1","seq":0,"data":{}}`, bad, "bad chunk frame"},
		{"chunk seq overflow", `{"type":"chunk","id":"1","seq":1e400,"data":"x"}`, bad, "bad chunk frame"},
		{"hello versions string", `{"type":"hello","protocolVersions":"1","instanceId":"A","context":"edit"}`, bad, "bad hello frame"},
		{"hello versions float", `{"type":"hello","protocolVersions":[1.0],"instanceId":"A","context":"edit"}`, bad, "bad hello frame"},
		{"attach placeId overflow", `{"type":"attach","ref":"edit","placeId":99999999999999999999}`, bad, "bad attach frame"},
		{"attach capabilities object", `{"type":"attach","ref":"edit","capabilities":{"exec":true}}`, bad, "bad attach frame"},
		{"ping t string", `{"type":"ping","t":"now"}`, bad, "bad ping frame"},
		{"event seq float", `{"type":"event","event":"log","seq":0.5}`, bad, "bad event frame"},
		{"session-event bad time", `{"type":"session-event","kind":"connected","session":{"sessionId":"s","connectedAt":"yesterday"}}`, bad, "bad session-event frame"},
		{"client-welcome sessions object", `{"type":"client-welcome","sessions":{}}`, bad, "bad client-welcome frame"},
		{"client-hello pid string", `{"type":"client-hello","protocolVersions":[1],"pid":"42"}`, bad, "bad client-hello frame"},
		{"welcome version string", `{"type":"welcome","protocolVersion":"1"}`, bad, "bad welcome frame"},
		{"reject code number", `{"type":"reject","code":1,"message":"x"}`, bad, "bad reject frame"},
		{"invalid payload", `{"type":"progress","id":"1","payload":{"a":}}`, bad, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatalf("Decode(%s) = %#v, want error %s", tt.in, m, tt.code)
			}
			if m != nil {
				t.Errorf("Decode returned a message with its error: %#v", m)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error %T %v is not a *protocol.Error", err, err)
			}
			if perr.Code != tt.code {
				t.Errorf("code = %s, want %s (message %q)", perr.Code, tt.code, perr.Message)
			}
			if !strings.Contains(perr.Message, tt.message) {
				t.Errorf("message %q does not contain %q", perr.Message, tt.message)
			}
			if perr.Message == "" {
				t.Error("empty error message")
			}
		})
	}
}

func TestDecodeErrorMessagesAreShort(t *testing.T) {
	long := strings.Repeat("é", 5000) // two bytes each: clipping must not split one
	inputs := []string{
		`{"type":"` + long + `"}`,
		`{"type":"request","id":"` + long + `"` + long,
		`{"type":"chunk","id":"1","seq":"` + long + `"}`,
		long,
	}
	for _, in := range inputs {
		_, err := Decode([]byte(in))
		if err == nil {
			t.Fatalf("Decode accepted %.40q", in)
		}
		msg := err.Error()
		if len(msg) > 1024 {
			t.Errorf("error message is %d bytes long: %.80q…", len(msg), msg)
		}
		if !utf8.ValidString(msg) {
			t.Errorf("error message is not valid UTF-8: %q", msg)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in      string
		wantLen int // in bytes, without the ellipsis
		clipped bool
		note    string
	}{
		{strings.Repeat("a", 200), 200, false, ""},
		{strings.Repeat("a", 201), 200, true, ""},
		{strings.Repeat("é", 150), 200, true, ""},                    // 2-byte runes, boundary at 200
		{"a" + strings.Repeat("é", 150), 199, true, ""},              // boundary at 199
		{"ab" + strings.Repeat("🎮", 60), 198, true, ""},              // 4-byte runes
		{strings.Repeat("\x80", 300), 196, true, "invalid UTF-8 ok"}, // no rune start: backs up at most 4 bytes
	}
	for _, tt := range tests {
		got := clip(tt.in)
		body := strings.TrimSuffix(got, "…")
		if (body != got) != tt.clipped {
			t.Errorf("clip(%.20q…) clipped=%v, want %v", tt.in, body != got, tt.clipped)
		}
		if len(body) != tt.wantLen {
			t.Errorf("clip(%.20q…) kept %d bytes, want %d", tt.in, len(body), tt.wantLen)
		}
		if utf8.ValidString(tt.in) && !utf8.ValidString(got) {
			t.Errorf("clip(%.20q…) = %q is not valid UTF-8", tt.in, got)
		}
	}
}

func TestErrorIsAndCodeOf(t *testing.T) {
	busy := Errorf(CodeBusy, "plugin is busy running %s", "exec")
	if busy.Error() != "plugin is busy running exec" {
		t.Errorf("Error() = %q", busy.Error())
	}
	if got := (&Error{Code: CodeTimeout}).Error(); got != "TIMEOUT" {
		t.Errorf("Error() without message = %q, want the code", got)
	}
	var typedNil *Error
	wrapped := fmt.Errorf("call exec: %w", busy)
	tests := []struct {
		name   string
		err    error
		target error
		is     bool
	}{
		{"same code", busy, &Error{Code: CodeBusy}, true},
		{"same code other message", busy, &Error{Code: CodeBusy, Message: "different"}, true},
		{"wrapped", wrapped, &Error{Code: CodeBusy}, true},
		{"wrapped target", busy, fmt.Errorf("x: %w", &Error{Code: CodeBusy}), true},
		{"other code", wrapped, &Error{Code: CodeTimeout}, false},
		{"plain target", busy, io.EOF, false},
		{"typed nil target", busy, typedNil, false},
		{"plain error", io.EOF, &Error{Code: CodeBusy}, false},
	}
	for _, tt := range tests {
		if got := errors.Is(tt.err, tt.target); got != tt.is {
			t.Errorf("%s: errors.Is = %v, want %v", tt.name, got, tt.is)
		}
	}

	codes := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, ""},
		{"plain", io.EOF, ""},
		{"direct", busy, CodeBusy},
		{"wrapped", wrapped, CodeBusy},
		{"joined", errors.Join(io.EOF, &Error{Code: CodeUnknownOutcome}), CodeUnknownOutcome},
		{"typed nil", error(typedNil), ""},
		{"decode error", func() error { _, err := Decode([]byte(`{"type":"x"}`)); return err }(), CodeUnknownMessage},
	}
	for _, tt := range codes {
		if got := CodeOf(tt.err); got != tt.want {
			t.Errorf("%s: CodeOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestErrorCodesAreDistinct(t *testing.T) {
	all := []Code{
		CodeUnknownAction, CodeInvalidPayload, CodeBusy, CodeTimeout, CodeInstanceNotFound,
		CodePropertyNotFound, CodeScreenshotFailed, CodeCapabilityUnsupported, CodeInternal,
		CodeSessionNotFound, CodeSessionDisconnected, CodeUnknownOutcome, CodeHostUnavailable,
		CodeShuttingDown, CodeCancelled, CodeUnsupportedProtocol, CodeInvalidHello,
		CodeMalformedFrame, CodeUnknownMessage, CodeUnknownRequest, CodePayloadTooLarge,
	}
	seen := map[Code]bool{}
	for _, c := range all {
		if seen[c] {
			t.Errorf("duplicate code %s", c)
		}
		seen[c] = true
		if strings.ToUpper(string(c)) != string(c) || strings.Contains(string(c), " ") {
			t.Errorf("code %q is not UPPER_SNAKE", c)
		}
	}
}

func TestMessageTypeNames(t *testing.T) {
	var names []string
	for typ := range registry {
		names = append(names, typ)
	}
	sort.Strings(names)
	want := []string{"ack", "attach", "attached", "cancel", "chunk", "client-challenge", "client-hello", "client-proof", "client-welcome",
		"detach", "error", "event", "goodbye", "hello", "host-transfer", "pair", "ping", "pong", "progress",
		"reject", "replaced", "request", "response", "session-event", "unwatch", "watch", "welcome"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("message types = %v\nwant %v (update PROTOCOL.md when this changes)", names, want)
	}
}

// topLevelKeys lists the keys of a JSON object in wire order, duplicates
// included.
func topLevelKeys(t testing.TB, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("bad key in %s: %v", data, err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("bad value in %s: %v", data, err)
		}
	}
	return keys
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// TestProtocolDocExamples keeps PROTOCOL.md honest: every ```json block is
// valid JSON, every one with a "type" decodes, and every message type has an
// example.
func TestProtocolDocExamples(t *testing.T) {
	doc, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < len(registry) {
		t.Fatalf("PROTOCOL.md has only %d json examples", len(blocks))
	}
	seen := map[string]bool{}
	for _, b := range blocks {
		text := bytes.TrimSpace(b[1])
		if !json.Valid(text) {
			t.Errorf("example is not valid JSON:\n%s", text)
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(text, &head)
		if head.Type == "" {
			continue // an embedded object (error object, /health answer)
		}
		m, err := Decode(text)
		if err != nil {
			t.Errorf("example does not decode: %v\n%s", err, text)
			continue
		}
		seen[m.Type()] = true
		if h, ok := m.(Hello); ok {
			if _, perr := ValidateHello(h); perr != nil {
				t.Errorf("hello example is not valid: %s", perr.Message)
			}
		}
	}
	for typ := range registry {
		if !seen[typ] {
			t.Errorf("PROTOCOL.md has no example of %q", typ)
		}
	}
}
