package authtoken

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"testing"
)

// TestClientProofs: the key is HKDF-SHA256(token, "client-auth") and not
// the token; host and client proofs differ (labels), depend on both
// nonces, and verify only with the same token.
func TestClientProofs(t *testing.T) {
	t.Parallel()
	tok := "a-token-of-the-right-shape-0123456789"
	key := ClientKey(tok)
	if len(key) != 32 || bytes.Contains(key, []byte(tok)) || !bytes.Equal(key, ClientKey(tok)) {
		t.Fatalf("key %x", key)
	}
	if bytes.Equal(key, deriveKey(tok, "plugin-pairing")) {
		t.Fatal("the client key equals another purpose's key")
	}
	cn, _ := DecodeNonce(NewNonce())
	hn, _ := DecodeNonce(NewNonce())
	hp, cp := HostProof(key, cn, hn), ClientProof(key, cn, hn)
	if hp == cp {
		t.Fatal("host and client proofs are equal")
	}
	m := hmac.New(sha256.New, key)
	m.Write(append(append([]byte("host"), cn...), hn...))
	if want := base64.RawURLEncoding.EncodeToString(m.Sum(nil)); hp != want {
		t.Fatalf("host proof %s, want %s", hp, want)
	}
	other, _ := DecodeNonce(NewNonce())
	for name, p := range map[string]string{
		"another client nonce": HostProof(key, other, hn),
		"another host nonce":   HostProof(key, cn, other),
		"another token":        HostProof(ClientKey(tok+"x"), cn, hn),
	} {
		if ProofEqual(p, hp) {
			t.Errorf("%s gives the same proof", name)
		}
	}
	if !ProofEqual(HostProof(key, cn, hn), hp) {
		t.Fatal("the same inputs do not verify")
	}
	for _, bad := range []string{"", "short", NewNonce() + "AA", "!!!!"} {
		if _, err := DecodeNonce(bad); err == nil {
			t.Errorf("nonce %q accepted", bad)
		}
	}
}
