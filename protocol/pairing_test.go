package protocol

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestProofs: each side's proof is HMAC-SHA256 over its label and both
// nonces; the two sides' proofs differ, and any change of key, nonce or
// window changes them.
func TestProofs(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	m := hmac.New(sha256.New, key)
	m.Write([]byte("studio-bridge plugin proof\nhostnonce\npluginnonce\nwin"))
	if got, want := PluginProof(key, "hostnonce", "pluginnonce", "win"), hex.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("PluginProof = %s, want %s", got, want)
	}
	base := PluginProof(key, "h", "p", "w")
	for name, other := range map[string]string{
		"host proof":   HostProof(key, "h", "p", "w"),
		"other key":    PluginProof([]byte("another key"), "h", "p", "w"),
		"host nonce":   PluginProof(key, "h2", "p", "w"),
		"plugin nonce": PluginProof(key, "h", "p2", "w"),
		"window":       PluginProof(key, "h", "p", "w2"),
	} {
		if other == base || ProofMatches(base, other) {
			t.Errorf("%s: proof unchanged", name)
		}
	}
	if !ProofMatches(base, base) || ProofMatches("", "") || ProofMatches(base, "") || len(base) != ProofHexBytes {
		t.Fatal("ProofMatches")
	}
	if n := NewNonce(); !ValidNonce(n) || n == NewNonce() {
		t.Fatalf("NewNonce %q", n)
	}
}
