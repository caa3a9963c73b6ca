package authtoken

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestPairingKey: HKDF-SHA256(token, no salt, info "plugin-pairing"), 32
// bytes, as computed independently (RFC 5869 extract-then-expand by hand);
// another token gives another key; no token, no key.
func TestPairingKey(t *testing.T) {
	t.Parallel()
	const tok = "an-example-token-of-the-user-0123456789"
	const want = "fa1e579da95b88fd3ef81a4e4d67d5173f0b59ed860c40c9b1dd90ec18110eee"
	if got := hex.EncodeToString(PairingKey(tok)); got != want {
		t.Fatalf("PairingKey = %s, want %s", got, want)
	}
	if PairingKeyHex(tok) != want || hex.EncodeToString(Token{Value: tok}.PairingKey()) != want {
		t.Fatal("PairingKeyHex or Token.PairingKey disagree with PairingKey")
	}
	if PairingKeyHex(tok+"x") == want {
		t.Fatal("another token gave the same key")
	}
	if PairingKey("") != nil || PairingKeyHex("") != "" {
		t.Fatal("an empty token has a key")
	}
}

// TestStore: Store writes a token LoadOrCreate then reads, refuses a bad
// one, and never replaces an existing file.
func TestStore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cfg")
	v := Generate()
	if err := Store(dir, v); err != nil {
		t.Fatal(err)
	}
	got, err := LoadOrCreate(dir)
	if err != nil || got.Value != v {
		t.Fatalf("LoadOrCreate after Store = %q, %v", got.Value, err)
	}
	if err := Store(dir, Generate()); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Store over an existing file: %v, want fs.ErrExist", err)
	}
	if err := Store(t.TempDir(), "short"); err == nil {
		t.Fatal("Store accepted an invalid token")
	}
}
