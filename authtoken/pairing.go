package authtoken

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// PairingInfo is the HKDF info string of the plugin pairing key.
const PairingInfo = "plugin-pairing"

// PairingKeyBytes is the pairing key's length.
const PairingKeyBytes = 32

// PairingKey derives the plugin pairing key from the user's token:
// HKDF-SHA256(token, no salt, info "plugin-pairing"), 32 bytes. Every
// process that holds the token (a host, a standby that takes over, a
// --remote client given STUDIO_BRIDGE_TOKEN) derives the same key, and
// install-plugin writes it into the plugin it installs; the key itself never
// crosses the wire (PROTOCOL.md 12.3). An empty token has no key (nil).
func PairingKey(token string) []byte {
	if token == "" {
		return nil
	}
	k, err := hkdf.Key(sha256.New, []byte(token), nil, PairingInfo, PairingKeyBytes)
	if err != nil {
		return nil // unreachable: 32 bytes is far below HKDF-SHA256's limit
	}
	return k
}

// PairingKey is the token's plugin pairing key (see the function).
func (t Token) PairingKey() []byte { return PairingKey(t.Value) }

// PairingKeyHex is the key as install-plugin writes it into the plugin:
// 64 lower-case hex digits, or "" for an empty token.
func PairingKeyHex(token string) string {
	k := PairingKey(token)
	if k == nil {
		return ""
	}
	return hex.EncodeToString(k)
}

// Store writes value as the token file in dir, as LoadOrCreate would have
// made it (private, atomic, never replacing an existing file: fs.ErrExist
// then). Tests use it to give every config directory of a run one token.
func Store(dir, value string) error {
	if err := Validate(value); err != nil {
		return err
	}
	return create(dir, filepath.Join(dir, FileName), value)
}
