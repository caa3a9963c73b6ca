package bridge

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// clientHandshake runs the client's half of the client handshake (client
// protocol 3, PROTOCOL.md): hello with a fresh nonce and no secret; check
// the host's proof over that nonce before anything that depends on the
// token is sent; answer with our proof; read the welcome. Whatever answers
// on the port, a rogue included, learns two nonces and one MAC bound to
// them: nothing it can replay or turn into the token.
func clientHandshake(ctx context.Context, c *websocket.Conn, addr, version string, token authtoken.Token, returning []string) (protocol.ClientWelcome, error) {
	var zero protocol.ClientWelcome
	nonce := authtoken.NewNonce()
	clientNonce, _ := authtoken.DecodeNonce(nonce)
	hello, _ := protocol.Encode(protocol.ClientHello{ProtocolVersions: protocol.ClientOfferedVersions, ClientVersion: version,
		PID: os.Getpid(), Nonce: nonce})
	if err := c.Write(ctx, websocket.MessageText, hello); err != nil {
		return zero, fmt.Errorf("join bridge host at %s: %w", addr, err)
	}
	m, err := readHandshake(ctx, c, addr)
	if err != nil {
		return zero, err
	}
	var challenge protocol.ClientChallenge
	switch m := m.(type) {
	case protocol.ClientChallenge:
		challenge = m
	case protocol.Reject:
		return zero, refusal(addr, token, m)
	case protocol.ClientWelcome:
		// A welcome without a challenge: something that admits anyone.
		return zero, unproven(addr, token, "it welcomed this process without proving it holds your token")
	default:
		return zero, fmt.Errorf("join bridge host at %s: expected client-challenge, got %q", addr, m.Type())
	}
	key := authtoken.ClientKey(token.Value)
	hostNonce, err := authtoken.DecodeNonce(challenge.Nonce)
	if err != nil || !authtoken.ProofEqual(challenge.Proof, authtoken.HostProof(key, clientNonce, hostNonce)) {
		return zero, unproven(addr, token, "its proof of your token is wrong")
	}
	answer, _ := protocol.Encode(protocol.ClientProof{Proof: authtoken.ClientProof(key, clientNonce, hostNonce), Returning: returning})
	if err := c.Write(ctx, websocket.MessageText, answer); err != nil {
		return zero, fmt.Errorf("join bridge host at %s: %w", addr, err)
	}
	m, err = readHandshake(ctx, c, addr)
	if err != nil {
		return zero, err
	}
	switch m := m.(type) {
	case protocol.ClientWelcome:
		return m, nil
	case protocol.Reject:
		return zero, refusal(addr, token, m)
	default:
		return zero, fmt.Errorf("join bridge host at %s: expected client-welcome, got %q", addr, m.Type())
	}
}

// readHandshake reads and decodes one handshake frame (the welcome lists
// every session, so it is read the generous way).
func readHandshake(ctx context.Context, c *websocket.Conn, addr string) (protocol.Message, error) {
	data, err := readWelcome(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("join bridge host at %s: no answer to the handshake: %w", addr, err)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("join bridge host at %s: %w", addr, err)
	}
	return m, nil
}

// refusal is a host's reject as an error the caller does not retry. A
// reject of our protocol version comes from a process of another
// studio-bridge version (an older host refuses 3 as unsupported).
func refusal(addr string, token authtoken.Token, m protocol.Reject) error {
	if m.Code == protocol.CodeUnauthorized {
		return newTokenError(addr, token, "the host refused this process's proof: "+m.Message)
	}
	if m.Code == protocol.CodeUnsupportedProtocol {
		return &protocol.Error{Code: m.Code, Message: fmt.Sprintf(
			"another studio-bridge version holds port %s: stop it or upgrade (it said: %s)", portOf(addr), m.Message)}
	}
	return &protocol.Error{Code: m.Code, Message: "bridge host refused this process: " + m.Message}
}

// unproven is the error for a process on the port that answers as a
// studio-bridge host but cannot prove it holds this process's token: a
// host started with another token (this process has a wrong token), or an
// impostor. The client cannot tell which; the TokenError names both, with
// the port, the process holding it and where this process's token came
// from.
func unproven(addr string, token authtoken.Token, why string) error {
	return newTokenError(addr, token, why)
}

// portOf is addr's port, or addr itself if it has none.
func portOf(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return port
	}
	return addr
}
