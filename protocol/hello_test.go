package protocol

import (
	"strings"
	"testing"
)

func validHello() Hello {
	return Hello{ProtocolVersions: []int{2}, PluginVersion: "0.3.1", InstanceID: "4f1c2a9e-studio", Nonce: "bm9uY2Utb2YtdGhlLXBsdWdpbg"}
}

// TestValidateHello: the hello opens a window's socket; only its
// socket-level fields are checked. A plugin that offers only protocol 1
// (never released) is told to install the plugin that matches.
func TestValidateHello(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*Hello)
		code     Code     // "" means accepted
		mentions []string // substrings of the reject message
	}{
		{"ok", func(*Hello) {}, "", nil},
		{"ok newer versions offered too", func(h *Hello) { h.ProtocolVersions = []int{3, 2} }, "", nil},
		{"ok version 1 offered too", func(h *Hello) { h.ProtocolVersions = []int{2, 1} }, "", nil},
		{"ok versions ascending", func(h *Hello) { h.ProtocolVersions = []int{1, 2} }, "", nil},
		{"ok minimal", func(h *Hello) {
			*h = Hello{ProtocolVersions: []int{2}, InstanceID: "A", Nonce: strings.Repeat("n", 16)}
		}, "", nil},
		{"ok instanceId 128", func(h *Hello) { h.InstanceID = strings.Repeat("x", 128) }, "", nil},
		{"ok instanceId charset", func(h *Hello) { h.InstanceID = "Az09._:-" }, "", nil},
		{"ok pluginVersion 64", func(h *Hello) { h.PluginVersion = strings.Repeat("9", 64) }, "", nil},

		{"version 1 only", func(h *Hello) { h.ProtocolVersions = []int{1} }, CodeUnsupportedProtocol, []string{"[1]", "[2]", "studio-bridge install-plugin"}},
		{"versions missing", func(h *Hello) { h.ProtocolVersions = nil }, CodeUnsupportedProtocol, []string{"[2]", "[]", "install-plugin"}},
		{"versions empty", func(h *Hello) { h.ProtocolVersions = []int{} }, CodeUnsupportedProtocol, []string{"[2]", "[]"}},
		{"versions only newer", func(h *Hello) { h.ProtocolVersions = []int{3} }, CodeUnsupportedProtocol, []string{"[2]", "[3]"}},
		{"versions unknown", func(h *Hello) { h.ProtocolVersions = []int{0, 3, 99} }, CodeUnsupportedProtocol, []string{"[2]", "[0 3 99]"}},
		{"versions negative", func(h *Hello) { h.ProtocolVersions = []int{-1} }, CodeUnsupportedProtocol, []string{"[-1]"}},
		{"version checked first", func(h *Hello) { h.ProtocolVersions = []int{7}; h.InstanceID = "" }, CodeUnsupportedProtocol, []string{"[7]"}},

		{"instanceId empty", func(h *Hello) { h.InstanceID = "" }, CodeInvalidHello, []string{"instanceId"}},
		{"instanceId too long", func(h *Hello) { h.InstanceID = strings.Repeat("x", 129) }, CodeInvalidHello, []string{"instanceId"}},
		{"instanceId space", func(h *Hello) { h.InstanceID = "studio 1" }, CodeInvalidHello, []string{"instanceId", `"studio 1"`}},
		{"instanceId slash", func(h *Hello) { h.InstanceID = "a/b" }, CodeInvalidHello, []string{"instanceId"}},
		{"instanceId non-ASCII", func(h *Hello) { h.InstanceID = "stüdio" }, CodeInvalidHello, []string{"instanceId"}},
		{"instanceId newline", func(h *Hello) { h.InstanceID = "a\n" }, CodeInvalidHello, []string{"instanceId"}},
		{"instanceId huge", func(h *Hello) { h.InstanceID = strings.Repeat("y", 100000) }, CodeInvalidHello, []string{"instanceId"}},

		{"ok nonce 64", func(h *Hello) { h.Nonce = strings.Repeat("a", 64) }, "", nil},
		{"nonce missing: an unpaired plugin", func(h *Hello) { h.Nonce = "" }, CodeUnauthorized, []string{"not paired", "studio-bridge install-plugin"}},
		{"nonce short", func(h *Hello) { h.Nonce = strings.Repeat("a", 15) }, CodeInvalidHello, []string{"nonce"}},
		{"nonce long", func(h *Hello) { h.Nonce = strings.Repeat("a", 65) }, CodeInvalidHello, []string{"nonce"}},
		{"nonce charset", func(h *Hello) { h.Nonce = strings.Repeat("a", 20) + "\n" }, CodeInvalidHello, []string{"nonce"}},
		{"pluginVersion too long", func(h *Hello) { h.PluginVersion = strings.Repeat("9", 65) }, CodeInvalidHello, []string{"too long"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := validHello()
			tt.edit(&h)
			v, err := ValidateHello(h)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("ValidateHello rejected %v: %s %s", h, err.Code, err.Message)
				}
				if v != PluginProtocolVersion {
					t.Fatalf("negotiated %d, want %d", v, PluginProtocolVersion)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidateHello accepted %v", h)
			}
			if v != 0 {
				t.Errorf("version %d returned with an error", v)
			}
			if err.Code != tt.code {
				t.Errorf("code = %s, want %s (%s)", err.Code, tt.code, err.Message)
			}
			for _, s := range tt.mentions {
				if !strings.Contains(err.Message, s) {
					t.Errorf("message %q does not mention %q", err.Message, s)
				}
			}
			if len(err.Message) > 600 {
				t.Errorf("reject message is %d bytes long", len(err.Message))
			}
		})
	}
}

func TestValidateClientHello(t *testing.T) {
	tests := []struct {
		versions []int
		want     int
		code     Code
	}{
		{[]int{3}, 3, ""},
		{[]int{5, 3, 2, 1}, 3, ""},
		{ClientOfferedVersions, 3, ""},
		{nil, 0, CodeUnsupportedProtocol},
		// A client from before the token: it cannot authenticate.
		{[]int{1}, 0, CodeUnsupportedProtocol},
		// A client that sends the raw token: refused, so no host of this
		// build invites it.
		{[]int{2, 1}, 0, CodeUnsupportedProtocol},
	}
	for _, tt := range tests {
		v, err := ValidateClientHello(ClientHello{ProtocolVersions: tt.versions, ClientVersion: "0.3.1", PID: 1})
		if tt.code == "" {
			if err != nil || v != tt.want {
				t.Errorf("ValidateClientHello(%v) = %d, %v; want %d", tt.versions, v, err, tt.want)
			}
			continue
		}
		if err == nil || err.Code != tt.code {
			t.Errorf("ValidateClientHello(%v) = %d, %v; want code %s", tt.versions, v, err, tt.code)
			continue
		}
		if !strings.Contains(err.Message, "[3]") {
			t.Errorf("message %q does not name the supported versions", err.Message)
		}
	}
}

func TestClientHelloFieldsBounded(t *testing.T) {
	tests := []struct {
		name string
		h    ClientHello
		code Code
	}{
		{"a nonce", ClientHello{ProtocolVersions: []int{3}, ClientVersion: "0.3.1", Nonce: strings.Repeat("n", 43)}, ""},
		{"the longest nonce", ClientHello{ProtocolVersions: []int{3}, ClientVersion: "0.3.1", Nonce: strings.Repeat("n", MaxNonceBytes)}, ""},
		{"a nonce too long", ClientHello{ProtocolVersions: []int{3}, ClientVersion: "0.3.1", Nonce: strings.Repeat("n", MaxNonceBytes+1)}, CodeInvalidHello},
		{"a token too long", ClientHello{ProtocolVersions: []int{3}, ClientVersion: "0.3.1", Token: strings.Repeat("t", MaxTokenBytes+1)}, CodeInvalidHello},
		{"a version too long", ClientHello{ProtocolVersions: []int{3}, ClientVersion: strings.Repeat("9", 65)}, CodeInvalidHello},
	}
	for _, tt := range tests {
		_, err := ValidateClientHello(tt.h)
		switch {
		case tt.code == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.code != "" && (err == nil || err.Code != tt.code):
			t.Errorf("%s: %v; want %s", tt.name, err, tt.code)
		}
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		offered []int
		want    int
		ok      bool
	}{
		{nil, 0, false},
		{[]int{}, 0, false},
		{[]int{3}, 3, true},
		{[]int{3, 3}, 3, true},
		{[]int{3, 2, 1}, 3, true},
		{[]int{1, 3}, 3, true},
		{[]int{2, 1}, 0, false},
		{[]int{1}, 0, false},
		{[]int{0}, 0, false},
		{[]int{4, 5}, 0, false},
		{[]int{-1, 3}, 3, true},
	}
	for _, tt := range tests {
		got, ok := Negotiate(tt.offered)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Negotiate(%v) = %d, %v; want %d, %v", tt.offered, got, ok, tt.want, tt.ok)
		}
	}
	if SupportedVersions[0] != Version {
		t.Errorf("SupportedVersions %v does not start with Version %d", SupportedVersions, Version)
	}
}

func TestNegotiatePicksNewestCommon(t *testing.T) {
	saved := SupportedVersions
	defer func() { SupportedVersions = saved }()
	SupportedVersions = []int{3, 2, 1}
	tests := []struct {
		offered []int
		want    int
	}{
		{[]int{1, 2, 3}, 3},
		{[]int{2, 1}, 2},
		{[]int{1, 4}, 1},
		{[]int{4, 2}, 2},
	}
	for _, tt := range tests {
		if got, ok := Negotiate(tt.offered); !ok || got != tt.want {
			t.Errorf("Negotiate(%v) with %v = %d, %v; want %d", tt.offered, SupportedVersions, got, ok, tt.want)
		}
	}
}

func TestParseContextAndState(t *testing.T) {
	for _, s := range []string{"", "edit", "server", "client"} {
		if c, err := ParseContext(s); err != nil || string(c) != s {
			t.Errorf("ParseContext(%q) = %q, %v", s, c, err)
		}
	}
	for _, s := range []string{"Edit", "play", " edit", "studio"} {
		if _, err := ParseContext(s); err == nil {
			t.Errorf("ParseContext(%q) accepted", s)
		}
	}
	for _, s := range []State{StateEdit, StatePlay, StateRun, StatePaused, StateServer, StateClient} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for _, s := range []State{"", "edit", "Stopped", "PLAY"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
	if !sampleSession.HasCapability("exec") || sampleSession.HasCapability("Exec") || (SessionInfo{}).HasCapability("") {
		t.Error("HasCapability")
	}
}

func TestHelloString(t *testing.T) {
	h := validHello()
	h.InstanceID = strings.Repeat("i", 1000) // logged before it is validated
	s := h.String()
	for _, want := range []string{"instance=iii", "plugin=0.3.1", "versions=[2]"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q, missing %q", s, want)
		}
	}
	if len(s) > 400 {
		t.Errorf("String() is %d bytes; the instance id should be clipped", len(s))
	}
}

// TestValidateClientHelloReturning bounds the returning list a rejoining
// client sends: a hello stays small.
func TestValidateClientHelloReturning(t *testing.T) {
	many := make([]string, MaxReturning+1)
	for i := range many {
		many[i] = "s"
	}
	tests := []struct {
		name      string
		returning []string
		ok        bool
	}{
		{"none", nil, true},
		{"some", []string{"0b6c8a4e-6f1e-4a53-9a57-0c1f7b9d2a10", "b"}, true},
		{"the most", many[:MaxReturning], true},
		{"too many", many, false},
		{"empty id", []string{""}, false},
		{"long id", []string{strings.Repeat("x", 65)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ValidateClientHello(ClientHello{ProtocolVersions: ClientOfferedVersions, ClientVersion: "0.3.1", Token: strings.Repeat("t", 43), Returning: tt.returning})
			if tt.ok != (err == nil) {
				t.Fatalf("ValidateClientHello with %d returning = %v; want ok %v", len(tt.returning), err, tt.ok)
			}
			if err != nil && err.Code != CodeInvalidHello {
				t.Fatalf("code %s, want %s", err.Code, CodeInvalidHello)
			}
		})
	}
}
