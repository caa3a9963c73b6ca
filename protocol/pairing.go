package protocol

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Pairing (PROTOCOL.md 12.3): host and plugin prove to each other that they
// hold the pairing key (authtoken.PairingKey, which install-plugin writes
// into the plugin) by HMAC-SHA256 over nonces from both sides; the key never
// crosses the wire.
//
//	plugin → host   hello   {…, nonce: pluginNonce}
//	host → plugin   welcome {…, nonce: hostNonce, proof: HostProof}
//	plugin → host   pair    {proof: PluginProof}   (after checking the host's)
//
// The host accepts no attach before a valid pair; the plugin sends nothing
// but pair, and obeys nothing, before the host's proof checks out.
const (
	// TypePair carries the plugin's proof.
	TypePair = "pair"
	// MinNonceBytes and MaxNonceBytes bound a nonce: 16-64 characters of
	// letters, digits, '-' and '_'.
	MinNonceBytes = 16
	MaxNonceBytes = 64
	// ProofHexBytes is a proof's length: HMAC-SHA256 in lower-case hex.
	ProofHexBytes = 64
	// hostProofLabel and pluginProofLabel keep one side's proof from ever
	// serving as the other's.
	hostProofLabel   = "studio-bridge host proof"
	pluginProofLabel = "studio-bridge plugin proof"
)

// Pair is the plugin's proof that it holds the pairing key. An unpaired
// plugin sends it with no proof, to be told to run install-plugin.
type Pair struct {
	Proof string `json:"proof"`
}

func (Pair) Type() string { return TypePair }

// NewNonce returns a fresh nonce: 32 random bytes, URL-safe base64 without
// padding (43 characters).
func NewNonce() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidNonce accepts MinNonceBytes to MaxNonceBytes letters, digits, '-' or '_'.
func ValidNonce(s string) bool {
	if len(s) < MinNonceBytes || len(s) > MaxNonceBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// proof is HMAC-SHA256(key, label "\n" hostNonce "\n" pluginNonce "\n"
// instanceID) in lower-case hex. Newlines occur in none of the fields.
func proof(key []byte, label, hostNonce, pluginNonce, instanceID string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label + "\n" + hostNonce + "\n" + pluginNonce + "\n" + instanceID))
	return hex.EncodeToString(m.Sum(nil))
}

// HostProof is the host's proof, sent in the welcome.
func HostProof(key []byte, hostNonce, pluginNonce, instanceID string) string {
	return proof(key, hostProofLabel, hostNonce, pluginNonce, instanceID)
}

// PluginProof is the plugin's proof, sent in pair.
func PluginProof(key []byte, hostNonce, pluginNonce, instanceID string) string {
	return proof(key, pluginProofLabel, hostNonce, pluginNonce, instanceID)
}

// ProofMatches compares a presented proof with the expected one in constant
// time; an empty expected or presented proof never matches.
func ProofMatches(want, presented string) bool {
	if want == "" || len(presented) != len(want) {
		return false
	}
	return hmac.Equal([]byte(want), []byte(presented))
}

// Messages of an UNAUTHORIZED reject on /plugin: the plugin shows them in
// Studio's Output.
const (
	UnpairedMessage = "this Studio plugin is not paired with studio-bridge (it carries no pairing key): run `studio-bridge install-plugin` where studio-bridge runs, then reload plugins in Studio"
	WrongKeyMessage = "this Studio plugin's pairing key does not match this studio-bridge's token (installed by another user, or before the token changed): run `studio-bridge install-plugin` where studio-bridge runs, then reload plugins in Studio"
)
