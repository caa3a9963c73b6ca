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
// (authtoken.ClientProof).
type ClientProof struct {
	Proof string `json:"proof"`
}

func (ClientChallenge) Type() string { return TypeClientChallenge }
func (ClientProof) Type() string     { return TypeClientProof }

// MaxNonceBytes bounds a nonce on the wire (32 bytes are 43 in base64url).
const MaxNonceBytes = 64
