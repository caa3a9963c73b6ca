package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxChunkBytes is the most Data a plugin should put in one Chunk, keeping
// every frame well under the host's frame limit.
const MaxChunkBytes = 256 << 10

// Assembler rebuilds a chunked response payload. The zero value is not
// usable; call NewAssembler.
type Assembler struct {
	limit int
	next  int
	buf   strings.Builder
}

// NewAssembler returns an Assembler that refuses payloads over limit bytes.
func NewAssembler(limit int) *Assembler { return &Assembler{limit: limit} }

// Add appends one chunk. Chunks must arrive in Seq order, starting at 0.
func (a *Assembler) Add(c Chunk) error {
	if c.Seq != a.next {
		return Errorf(CodeMalformedFrame, "chunk %d of request %s arrived out of order (want %d)", c.Seq, clip(c.ID), a.next)
	}
	if a.buf.Len()+len(c.Data) > a.limit {
		return Errorf(CodePayloadTooLarge, "chunked payload of request %s exceeds %d bytes", clip(c.ID), a.limit)
	}
	a.next++
	a.buf.WriteString(c.Data)
	return nil
}

// Finish checks that exactly n chunks arrived and returns the payload.
func (a *Assembler) Finish(n int) (json.RawMessage, error) {
	if n != a.next {
		return nil, Errorf(CodeMalformedFrame, "response announced %d chunks but %d arrived", n, a.next)
	}
	raw := json.RawMessage(a.buf.String())
	if !json.Valid(raw) {
		return nil, Errorf(CodeMalformedFrame, "reassembled payload is not valid JSON")
	}
	return raw, nil
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
