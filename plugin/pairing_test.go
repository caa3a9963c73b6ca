package plugin

import (
	"bytes"
	"crypto/rand"
	"strings"
	"testing"
)

// TestSourceHoldsThePlaceholder: src/Pairing.luau's CARRIER is Placeholder,
// which install-plugin looks for in the build.
func TestSourceHoldsThePlaceholder(t *testing.T) {
	if !strings.Contains(pairingSource, `Pairing.CARRIER = "`+Placeholder+`"`) {
		t.Fatalf("src/Pairing.luau does not set CARRIER to %q", Placeholder)
	}
}

// TestPairRewritesOnlyThePlaceholder: the paired plugin is the Rojo build
// but for one chunk, stored uncompressed, whose data is the build's with the
// placeholder replaced by the carrier; the key and port read back; a paired
// plugin cannot be paired again, and a broken file is refused.
func TestPairRewritesOnlyThePlaceholder(t *testing.T) {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	paired, err := Pair(RBXM, key, 41234)
	if err != nil {
		t.Fatal(err)
	}
	before, err := chunks(RBXM)
	if err != nil {
		t.Fatal(err)
	}
	after, err := chunks(paired)
	if err != nil {
		t.Fatalf("the paired plugin is no longer a valid binary model: %v", err)
	}
	if len(before) != len(after) || !bytes.Equal(RBXM[:headerBytes], paired[:headerBytes]) {
		t.Fatalf("%d chunks became %d, or the header changed", len(before), len(after))
	}
	carrier, _ := Carrier(key, 41234)
	changed := 0
	for i := range before {
		b, a := before[i], after[i]
		if bytes.Equal(RBXM[b.start:b.end], paired[a.start:a.end]) {
			continue
		}
		changed++
		want := bytes.Replace(b.data, []byte(Placeholder), []byte(carrier), 1)
		if b.name != "PROP" || !bytes.Equal(a.data, want) || bytes.Equal(a.data, b.data) {
			t.Fatalf("chunk %d (%q) changed beyond the placeholder", i, b.name)
		}
	}
	if changed != 1 {
		t.Fatalf("%d chunks changed, want 1", changed)
	}
	gotKey, port, ok, err := Paired(paired)
	if err != nil || !ok || !bytes.Equal(gotKey, key) || port != 41234 {
		t.Fatalf("Paired = %x, %d, %v, %v", gotKey, port, ok, err)
	}
	if _, _, ok, err := Paired(RBXM); ok || err != nil {
		t.Fatalf("the Rojo build reads as paired (%v, %v)", ok, err)
	}
	if _, err := Pair(paired, key, 1); err == nil || !strings.Contains(err.Error(), "no pairing placeholder") {
		t.Fatalf("pairing twice: %v", err)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": RBXM[:len(RBXM)/2],
		"not rbxm":  []byte(strings.Repeat("x", 64)),
	} {
		if _, err := Pair(bad, key, 1); err == nil {
			t.Errorf("%s: paired", name)
		}
	}
	if _, err := Pair(RBXM, key[:5], 1); err == nil {
		t.Error("a short key was accepted")
	}
	if _, err := Pair(RBXM, key, 70000); err == nil {
		t.Error("port 70000 was accepted")
	}
}
