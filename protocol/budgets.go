package protocol

import (
	"sync"
	"time"
)

// Budgets and deadlines of what the host holds for its peers (PROTOCOL.md
// section 4). They bound memory by bytes and make every wait end, so that
// a local peer that floods or stalls can neither grow the host nor starve
// the real plugin and clients.
const (
	// PluginFrameBudgetBytes bounds the bytes the host holds at once for
	// large frames (past LargeFrameBytes) from all plugin sockets together;
	// each reserves PluginMaxFrameBytes while it arrives and is handled.
	PluginFrameBudgetBytes = 64 * PluginMaxFrameBytes
	// ClientFrameBudgetBytes is the same for client connections: two
	// maximum-size client frames fit at once. Plugin and client frames draw
	// on separate budgets, so neither side can starve the other.
	ClientFrameBudgetBytes = 2 * ClientMaxFrameBytes
	// FrameBudgetWait bounds the wait of a large frame for its budget; a
	// peer still waiting then is closed with 1013 (try again later).
	FrameBudgetWait = 5 * time.Second
	// FrameBodyBase and FrameBodyMinRate bound how long a frame's body may
	// take once its header has arrived: FrameBodyBase, plus the frame limit
	// the frame reserves (a large one) at FrameBodyMinRate. A peer that
	// starts a frame and stalls is closed with 1008 instead of holding its
	// reservation.
	FrameBodyBase    = 2 * time.Second
	FrameBodyMinRate = 1 << 20 // bytes per second
	// HelloFreeBytes is how much of a first frame is read without the
	// handshake budget: a real hello (a few KiB at most) never waits for
	// it. A longer first frame reserves PreHandshakeMaxFrameBytes.
	HelloFreeBytes = 8 << 10
	// FirstFrameBodyTimeout bounds how long a first frame may take once its
	// header has arrived, and so how long it holds handshake budget.
	FirstFrameBodyTimeout = 2 * time.Second
	// MaxUnattachedSockets bounds the /plugin sockets past their hello that
	// carry no session yet; a newcomer past it closes the one that has
	// waited longest (1013).
	MaxUnattachedSockets = 64
	// AttachTimeout is how long a /plugin socket may stay without attaching
	// a session; it is then closed with 1008. Until its first attach its
	// frames are limited to PreHandshakeMaxFrameBytes, so it holds no
	// frame budget.
	AttachTimeout = 5 * time.Second
	// ReassemblyBudgetBytes bounds the bytes of chunked replies being
	// reassembled at once, for all sessions together; a reply that does not
	// fit fails its call with HOST_BUSY.
	ReassemblyBudgetBytes = 2 * MaxPayloadBytes
	// MaxCallsPerClient bounds the calls one client may have relayed and
	// unanswered at once; MaxCallBytesPerClient bounds their request
	// payloads together. Past either, a request fails with HOST_BUSY.
	MaxCallsPerClient     = 256
	MaxCallBytesPerClient = 2 * MaxRequestPayloadBytes
)

// CodeHostBusy: the host is at one of its budgets (chunked replies being
// reassembled, a client's calls in flight); the request may be retried once
// others finish.
const CodeHostBusy Code = "HOST_BUSY"

// ByteBudget is a count of bytes shared by many holders, none of which
// waits: a take that does not fit fails at once. The zero value is not
// usable; call NewByteBudget.
type ByteBudget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// NewByteBudget returns a budget of limit bytes.
func NewByteBudget(limit int64) *ByteBudget { return &ByteBudget{limit: limit} }

// TryTake takes n bytes if they fit.
func (b *ByteBudget) TryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// Give returns n bytes taken earlier.
func (b *ByteBudget) Give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// Used is the bytes taken now.
func (b *ByteBudget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Limit is the budget's size.
func (b *ByteBudget) Limit() int64 { return b.limit }
