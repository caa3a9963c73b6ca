package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// MaxChunkBytes is the most Data a plugin should put in one Chunk, keeping
// every frame well under the host's frame limit.
const MaxChunkBytes = 256 << 10

// Assembler rebuilds a chunked response payload. The zero value is not
// usable; call NewAssembler. Its methods may be called from several
// goroutines.
type Assembler struct {
	limit  int
	budget *ByteBudget // charged for every chunk held; nil charges nothing

	mu       sync.Mutex
	next     int
	parts    []string // the chunks' data, joined once by Finish
	size     int
	charged  int64
	released bool
}

// NewAssembler returns an Assembler that refuses payloads over limit bytes.
func NewAssembler(limit int) *Assembler { return &Assembler{limit: limit} }

// NewChargedAssembler is NewAssembler whose chunks are also charged to
// budget, shared by every reassembly in the process, until Release: a chunk
// that does not fit fails with HOST_BUSY. Without it, sessions that send
// chunks and never the response could make the host hold gigabytes.
func NewChargedAssembler(limit int, budget *ByteBudget) *Assembler {
	return &Assembler{limit: limit, budget: budget}
}

// Add appends one chunk. Chunks must arrive in Seq order, starting at 0.
func (a *Assembler) Add(c Chunk) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released {
		return Errorf(CodeCancelled, "request %s is already finished", clip(c.ID))
	}
	if c.Seq != a.next {
		return Errorf(CodeMalformedFrame, "chunk %d of request %s arrived out of order (want %d)", c.Seq, clip(c.ID), a.next)
	}
	if a.size+len(c.Data) > a.limit {
		return Errorf(CodePayloadTooLarge, "chunked payload of request %s exceeds %d bytes", clip(c.ID), a.limit)
	}
	if a.budget != nil {
		if !a.budget.TryTake(int64(len(c.Data))) {
			return Errorf(CodeHostBusy, "the host is already reassembling %d MiB of chunked replies, its limit: the reply to request %s (%d bytes so far) cannot be held; retry once other large calls have finished",
				a.budget.Limit()>>20, clip(c.ID), a.size)
		}
		a.charged += int64(len(c.Data))
	}
	a.next++
	a.parts = append(a.parts, c.Data)
	a.size += len(c.Data)
	return nil
}

// Finish checks that exactly n chunks arrived and returns the payload. It
// releases what the chunks were charged.
func (a *Assembler) Finish(n int) (json.RawMessage, error) {
	a.mu.Lock()
	next, parts := a.next, a.parts
	a.mu.Unlock()
	defer a.Release()
	if n != next {
		return nil, Errorf(CodeMalformedFrame, "response announced %d chunks but %d arrived", n, next)
	}
	raw := json.RawMessage(strings.Join(parts, ""))
	if !json.Valid(raw) {
		return nil, Errorf(CodeMalformedFrame, "reassembled payload is not valid JSON")
	}
	return raw, nil
}

// Release drops the chunks held and gives back what they were charged; a
// later Add fails. Calling it again does nothing.
func (a *Assembler) Release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released {
		return
	}
	a.released = true
	a.parts = nil
	if a.budget != nil {
		a.budget.Give(a.charged)
	}
	a.charged = 0
}

// Held is the bytes of chunk data held now.
func (a *Assembler) Held() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released {
		return 0
	}
	return a.size
}

// Split cuts a JSON payload into chunk data of at most size bytes each,
// never splitting a UTF-8 sequence.
func Split(payload []byte, size int) []string {
	if size <= 4 {
		panic(fmt.Sprintf("protocol.Split: size %d too small", size))
	}
	var out []string
	for len(payload) > 0 {
		n := min(size, len(payload))
		for n < len(payload) && n > 0 && payload[n]&0xC0 == 0x80 {
			n--
		}
		if n == 0 {
			// Only invalid UTF-8 (a run of continuation bytes) gets here:
			// cut at size rather than loop forever on empty pieces.
			n = min(size, len(payload))
		}
		out = append(out, string(payload[:n]))
		payload = payload[n:]
	}
	return out
}
