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
	// host's FrameBudgetBytes before the rest of it is read.
	LargeFrameBytes = 64 << 10
	// FrameBudgetBytes bounds the bytes the host holds at once for large
	// frames from all peers together: a frame past LargeFrameBytes
	// reserves its endpoint's whole frame limit until it has been decoded
	// and handled, and other large frames wait (their peers are not read
	// meanwhile). Two maximum-size client frames fit at once.
	FrameBudgetBytes = 2 * ClientMaxFrameBytes
	// WriteTimeout bounds one frame write.
	WriteTimeout = 5 * time.Second
	// PeerQueueBytes bounds the bytes waiting to be written to one peer; a
	// peer that lets it fill is closed as too slow. A single larger frame is
	// still sent when nothing else waits.
	PeerQueueBytes = 16 << 20
)

// WebSocket close status codes the host uses, besides the standard ones
// (1000 normal, 1001 going away, 1008 policy violation, 1009 too big).
const (
	CloseHeartbeatTimeout = 4000
	CloseSlowPeer         = 4001
	CloseReplaced         = 4002
)
