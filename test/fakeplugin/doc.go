// Package fakeplugin is a scriptable stand-in for the Studio plugin, written
// against the wire protocol alone (PROTOCOL.md section 12). A fake Plugin is
// one Studio window: one socket carrying a session per DataModel. Tests use
// it to register sessions with any instanceId, context and state, answer
// actions from a script, and misbehave on purpose: stall, drop mid-request,
// lose an acknowledgement, freeze one DataModel, send garbage or oversized
// frames.
//
// Like the real plugin it finds the host by polling /health, reconnects
// after losing it, resumes its sessions with their secrets, deduplicates
// re-sent requests, and moves its sessions to a new socket on Refresh. It is
// paired like an installed plugin (PROTOCOL.md 2.2): it checks the host's
// proof and proves the pairing key (Config.Key, else DefaultKey, which
// package kit sets to the key of the tests' token); Config.Unpaired and
// Config.TrustAnyHost make it misbehave there too.
//
// The recorded conversations (protocol/testdata/transcripts) are replayed
// against it (transcript_test.go), so its frames are the real plugin's;
// Config.Nonce fixes its hello nonce for that. Studio's canned answers
// follow the result types of package protocol/actions (studio_test.go).
package fakeplugin
