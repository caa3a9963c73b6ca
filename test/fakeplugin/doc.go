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
// re-sent requests, and moves its sessions to a new socket on Refresh.
package fakeplugin
