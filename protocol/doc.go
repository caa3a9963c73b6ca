// Package protocol defines the studio-bridge wire protocol: the JSON messages
// that travel over the host's two WebSocket endpoints, /plugin (Studio plugin
// sessions) and /client (other studio-bridge processes), their codec, version
// negotiation and the error codes every peer understands.
//
// The protocol is documented for implementers in PROTOCOL.md beside this file;
// that document is the source of truth and changes only with a version bump or
// a backwards-compatible addition. Decoders here read bytes straight from the
// network, so they never panic on malformed input and are fuzzed.
//
// What travels inside a plugin request, the action contract, is
// ACTIONS.md and package protocol/actions; package protocol/transcript
// reads the recorded conversations that pin both.
package protocol
