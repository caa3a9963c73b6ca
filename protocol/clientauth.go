package protocol

// The client handshake (client protocol 3): client-hello carries a nonce
// and no token; the host answers client-challenge, proving first that it
// holds the user's token; only then does the client answer client-proof.
// See PROTOCOL.md, "Client handshake".
const (
	TypeClientChallenge = "client-challenge"
	TypeClientProof     = "client-proof"
)

// ClientChallenge is the host's answer to a client-hello: its own nonce,
// and its proof over both nonces (authtoken.HostProof).
type ClientChallenge struct {
	Nonce string `json:"nonce"`
	Proof string `json:"proof"`
}

// ClientProof is the client's answer to a challenge whose proof it checked
// (authtoken.ClientProof). Returning, after a failover, lists the sessions
// of the host the client lost (at most MaxReturning; see
// ClientWelcome.Awaiting): sent here, not in the hello, so that only a host
// that proved itself learns them.
type ClientProof struct {
	Proof     string   `json:"proof"`
	Returning []string `json:"returning,omitempty"`
}

// The handshake frames join the codec's registry here, beside their types
// (registry's literal stays as it was: one place per message family).
func init() {
	registry[TypeClientChallenge] = func() any { return new(ClientChallenge) }
	registry[TypeClientProof] = func() any { return new(ClientProof) }
}

func (ClientChallenge) Type() string { return TypeClientChallenge }
func (ClientProof) Type() string     { return TypeClientProof }

// A client nonce is bounded by MaxNonceBytes (pairing.go): 32 bytes are
// 43 in base64url.
