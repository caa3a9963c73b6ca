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

// WebSocket close status codes the host uses, besides the standard ones
// (1000 normal, 1001 going away, 1008 policy violation, 1009 too big).
const (
	CloseHeartbeatTimeout = 4000
	CloseSlowPeer         = 4001
	CloseReplaced         = 4002
)
