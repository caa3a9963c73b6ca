package kit

import (
	"context"
	"fmt"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// JoinClient runs the client handshake (client protocol 3) on a raw
// /client socket with token, as bridge's own client does: hello with a
// nonce, check the host's proof, answer with ours, read the welcome. For
// tests and benchmarks that drive /client frame by frame.
func JoinClient(ctx context.Context, c *websocket.Conn, version, token string) (protocol.ClientWelcome, error) {
	var zero protocol.ClientWelcome
	nonce := authtoken.NewNonce()
	cn, _ := authtoken.DecodeNonce(nonce)
	if err := writeMsg(ctx, c, protocol.ClientHello{ProtocolVersions: protocol.ClientOfferedVersions, ClientVersion: version, Nonce: nonce}); err != nil {
		return zero, err
	}
	m, err := readMsg(ctx, c)
	if err != nil {
		return zero, err
	}
	ch, ok := m.(protocol.ClientChallenge)
	if !ok {
		return zero, fmt.Errorf("got %q, want client-challenge", m.Type())
	}
	key := authtoken.ClientKey(token)
	hn, err := authtoken.DecodeNonce(ch.Nonce)
	if err != nil || !authtoken.ProofEqual(ch.Proof, authtoken.HostProof(key, cn, hn)) {
		return zero, fmt.Errorf("the host's proof does not verify")
	}
	if err := writeMsg(ctx, c, protocol.ClientProof{Proof: authtoken.ClientProof(key, cn, hn)}); err != nil {
		return zero, err
	}
	if m, err = readMsg(ctx, c); err != nil {
		return zero, err
	}
	w, ok := m.(protocol.ClientWelcome)
	if !ok {
		return zero, fmt.Errorf("got %q, want client-welcome", m.Type())
	}
	return w, nil
}

func writeMsg(ctx context.Context, c *websocket.Conn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, data)
}

func readMsg(ctx context.Context, c *websocket.Conn) (protocol.Message, error) {
	_, data, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	return protocol.Decode(data)
}
