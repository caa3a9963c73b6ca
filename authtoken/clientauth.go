package authtoken

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// The /client handshake (client protocol 3) proves knowledge of the token
// both ways without sending it: each side MACs the two nonces under a key
// derived from the token, the host first. What crosses the wire is two
// fresh nonces and two MACs bound to them, of no use on another handshake.
const (
	// ClientAuthInfo is the HKDF info that derives the /client key; other
	// keys from the same token (plugin pairing) use other infos, so one
	// key never serves two purposes.
	ClientAuthInfo = "client-auth"
	// NonceBytes is the size of each side's nonce.
	NonceBytes = 32
)

// deriveKey is HKDF-SHA256(token, no salt, info), 32 bytes.
func deriveKey(token, info string) []byte {
	k, err := hkdf.Key(sha256.New, []byte(token), nil, info, 32)
	if err != nil { // only for lengths beyond 255 hash blocks
		panic(err)
	}
	return k
}

// ClientKey is the key of the /client handshake, derived from the token.
func ClientKey(token string) []byte { return deriveKey(token, ClientAuthInfo) }

// NewNonce returns NonceBytes from crypto/rand, base64url-encoded for the wire.
func NewNonce() string {
	b := make([]byte, NonceBytes)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeNonce checks a nonce from the wire: base64url of NonceBytes bytes.
func DecodeNonce(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != NonceBytes {
		return nil, errors.New("a nonce is 32 bytes, base64url without padding")
	}
	return b, nil
}

// HostProof is what the host sends: HMAC-SHA256(key, "host" | clientNonce
// | hostNonce). The client's fresh nonce makes it worthless for any other
// handshake; the label keeps it from ever equalling a ClientProof.
func HostProof(key, clientNonce, hostNonce []byte) string {
	return proof(key, "host", clientNonce, hostNonce)
}

// ClientProof is what the client answers once the host has proved itself:
// HMAC-SHA256(key, "client" | clientNonce | hostNonce).
func ClientProof(key, clientNonce, hostNonce []byte) string {
	return proof(key, "client", clientNonce, hostNonce)
}

// ProofEqual compares a presented proof with the expected one in constant
// time.
func ProofEqual(presented, expected string) bool {
	return hmac.Equal([]byte(presented), []byte(expected))
}

// proof MACs label and the two fixed-size nonces (their sizes make the
// concatenation unambiguous), base64url-encoded.
func proof(key []byte, label string, clientNonce, hostNonce []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	m.Write(clientNonce)
	m.Write(hostNonce)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
