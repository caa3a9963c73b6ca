package protocol

import "time"

// Endpoint paths on the host.
const (
	PathHealth = "/health"
	PathPlugin = "/plugin"
	PathClient = "/client"
)

// DefaultPort is the loopback port the bridge host binds.
const DefaultPort = 38741

// ServiceName is the "service" value of a studio-bridge /health answer; a
// process on the port that answers anything else is a stranger.
const ServiceName = "studio-bridge"

// Limits the host announces and enforces.
const (
	// PluginMaxFrameBytes bounds one frame from a plugin (announced in
	// Welcome.MaxFrameBytes). Larger payloads travel as chunks.
	PluginMaxFrameBytes = 1 << 20
	// MaxPayloadBytes bounds a reassembled chunked payload.
	MaxPayloadBytes = 64 << 20
	// ClientMaxFrameBytes bounds one frame between a client and the host:
	// the largest payload plus room for its envelope.
	ClientMaxFrameBytes = MaxPayloadBytes + 1<<20
	// DefaultHeartbeatInterval is how often each side pings the other.
	DefaultHeartbeatInterval = 5 * time.Second
	// MissedHeartbeats is how many intervals of silence drop a peer.
	MissedHeartbeats = 3
	// HandshakeTimeout bounds the wait for the first (hello) frame.
	HandshakeTimeout = 10 * time.Second
	// PreHandshakeMaxFrameBytes bounds the first frame on /plugin and
	// /client, before the peer is known: a hello is a few KiB, and even
	// one at every field limit (MaxCapabilities names of
	// MaxCapabilityBytes, JSON-escaped) fits.
	PreHandshakeMaxFrameBytes = 64 << 10
	// PreHandshakeBudgetBytes bounds the bytes the host holds for the first
	// frames of all connections still in their handshake, together: each
	// one reserves PreHandshakeMaxFrameBytes while its frame arrives, and
	// the rest wait (within HandshakeTimeout).
	PreHandshakeBudgetBytes = 16 << 20
	// LargeFrameBytes is the size above which a frame needs room in the
	// host's frame budget of its endpoint (PluginFrameBudgetBytes,
	// ClientFrameBudgetBytes) before the rest of it is read.
	LargeFrameBytes = 64 << 10
	// WriteTimeout bounds one frame write.
	WriteTimeout = 5 * time.Second
	// PeerQueueBytes bounds the bytes waiting to be written to one peer; a
	// peer that lets it fill is closed as too slow. A single larger frame is
	// still sent when nothing else waits.
	PeerQueueBytes = 16 << 20
	// MaxReturning bounds ClientHello.Returning: a hello stays a few KiB. A
	// client whose lost host had more sessions sends none (and waits out
	// the grace).
	MaxReturning = 32
)

// Bounds on what one peer may make the host keep, so that a client-welcome,
// which lists every session with its fields, always fits in
// ClientMaxFrameBytes (at most about 32 MiB even with every field at its
// limit and escaped at the worst rate).
const (
	// MaxSessions bounds the sessions the host holds in all.
	MaxSessions = 1024
	// MaxSessionsPerInstance bounds the sessions of one Studio window
	// (instanceId): its edit, server and client DataModels.
	MaxSessionsPerInstance = 16
	// MaxCapabilities bounds a session's capability list.
	MaxCapabilities = 64
	// MaxCapabilityBytes bounds one capability name.
	MaxCapabilityBytes = 64
	// MaxPlaceNameBytes bounds a session's placeName (hello, attach and
	// state events alike).
	MaxPlaceNameBytes = 1024
	// MaxPluginVersionBytes bounds a plugin's pluginVersion.
	MaxPluginVersionBytes = 64
	// MaxWatchesPerClient bounds the sessions one client watches at once.
	MaxWatchesPerClient = MaxSessions
	// MaxWatchIDBytes bounds the sessionId of a watch (the host's ids are
	// 36-byte UUIDs).
	MaxWatchIDBytes = 64
)

// WebSocket close status codes the host uses, besides the standard ones
// (1000 normal, 1001 going away, 1008 policy violation, 1009 too big).
const (
	CloseHeartbeatTimeout = 4000
	CloseSlowPeer         = 4001
)
