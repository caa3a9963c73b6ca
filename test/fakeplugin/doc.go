// Package fakeplugin is a scriptable stand-in for the Studio plugin, written
// against the wire protocol alone. Tests use it to register sessions with any
// instanceId, context and state, answer actions from a script, and misbehave
// on purpose: stall, drop mid-request, send garbage or oversized frames.
//
// Like the real plugin it finds the host by polling /health, reconnects after
// losing it, and asks to keep its session id.
package fakeplugin
