package protocol

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestNegotiatePlugin(t *testing.T) {
	tests := []struct {
		offered []int
		want    int
		ok      bool
	}{
		{[]int{2, 1}, 2, true},
		{[]int{1, 2}, 2, true},
		{[]int{1}, 0, false},
		{[]int{2}, 2, true},
		{[]int{3, 1}, 0, false},
		{[]int{3}, 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := NegotiatePlugin(tt.offered)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NegotiatePlugin(%v) = %d, %v; want %d, %v", tt.offered, got, ok, tt.want, tt.ok)
		}
	}
}

func TestValidateAttach(t *testing.T) {
	good := Attach{Ref: "server", InstanceID: "W", Context: ContextServer, State: StateServer, PlaceName: "P", Capabilities: []string{"exec"}}
	tests := []struct {
		name    string
		edit    func(*Attach)
		mention string // "" means accepted
	}{
		{"ok", func(*Attach) {}, ""},
		{"ok no state", func(a *Attach) { a.State = "" }, ""},
		{"ok secret 128", func(a *Attach) { a.ResumeSecret = strings.Repeat("s", 128) }, ""},
		{"other window", func(a *Attach) { a.InstanceID = "X" }, "instanceId"},
		{"bad context", func(a *Attach) { a.Context = "player" }, `"player"`},
		{"no context", func(a *Attach) { a.Context = "" }, "context"},
		{"bad state", func(a *Attach) { a.State = "Running" }, `"Running"`},
		{"long place", func(a *Attach) { a.PlaceName = strings.Repeat("p", 1025) }, "too long"},
		{"many capabilities", func(a *Attach) { a.Capabilities = make([]string, 65) }, "too long"},
		{"long secret", func(a *Attach) { a.ResumeSecret = strings.Repeat("s", 129) }, "resumeSecret"},
	}
	for _, tt := range tests {
		a := good
		tt.edit(&a)
		err := ValidateAttach(a, "W")
		switch {
		case tt.mention == "" && err != nil:
			t.Errorf("%s: rejected: %s", tt.name, err.Message)
		case tt.mention != "" && err == nil:
			t.Errorf("%s: accepted", tt.name)
		case err != nil && (err.Code != CodeInvalidAttach || !strings.Contains(err.Message, tt.mention)):
			t.Errorf("%s: %s %q, want INVALID_ATTACH mentioning %q", tt.name, err.Code, err.Message, tt.mention)
		}
	}
}

func TestResumeSecrets(t *testing.T) {
	a, b := NewResumeSecret(), NewResumeSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil || len(raw) != 32 || len(a) > MaxResumeSecretBytes {
		t.Fatalf("secret %q: %d bytes, %v", a, len(raw), err)
	}
	for _, tt := range []struct {
		have, presented string
		want            bool
	}{
		{a, a, true},
		{a, b, false},
		{a, "", false},
		{"", "", false}, // a session without a secret can never be claimed by one
		{a, a[:len(a)-1], false},
	} {
		if got := SecretMatches(tt.have, tt.presented); got != tt.want {
			t.Errorf("SecretMatches(%q, %q) = %v", tt.have, tt.presented, got)
		}
	}
}
