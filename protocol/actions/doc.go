// Package actions is the one home of the plugin contract: the name, request
// payload and result of every action the host sends the Studio plugin
// (plugin/src/Actions/*.luau, plugin/src/Subscriptions.luau), one file per
// action, with the JSON field names the plugin reads and writes.
// protocol/ACTIONS.md describes each action (payload, result, error codes,
// limits); the recorded conversations under protocol/testdata/transcripts
// pin the wire, replayed against the host, the Go fake plugin and the real
// Luau plugin (package protocol/transcript says how).
//
// Package commands builds these payloads and reads these results; it adds
// only what the host computes itself (source locations, PNG encoding).
package actions
