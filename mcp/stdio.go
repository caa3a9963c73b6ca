package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one line (one JSON-RPC message) read on stdio, as
// the SDK's own default does. A longer line is answered -32700 and skipped.
const MaxLineBytes = sdk.DefaultMaxLineLength

// maxCancelled bounds the ids of cancelled calls remembered at once.
const maxCancelled = 1024

// stdioTransport is the SDK's newline-delimited JSON transport over in and
// out with two things the SDK does not do (MCP and JSON-RPC require both):
//
//   - a line that is not JSON-RPC is answered with a JSON-RPC error (-32700
//     for bad JSON, -32600 for JSON that is not a message) and skipped; the
//     SDK would end the session on it;
//   - a call the client cancelled (notifications/cancelled) gets no
//     response: MCP says the receiver "SHOULD NOT send a response for the
//     cancelled request"; the SDK sends one anyway.
//
// It works on the byte streams under the SDK's transport rather than on a
// wrapped sdk.Connection, which would hide the SDK's own connection from
// its session bookkeeping.
func stdioTransport(in io.Reader, out io.Writer) *sdk.IOTransport {
	st := &stdioState{out: out, cancelled: map[string]struct{}{}}
	return &sdk.IOTransport{
		Reader:        io.NopCloser(&lineFilter{st: st, r: bufio.NewReaderSize(in, 64<<10)}),
		Writer:        cancelFilter{st},
		MaxLineLength: -1, // lineFilter bounds lines (MaxLineBytes)
	}
}

// stdioState is what the two filters share.
type stdioState struct {
	writeMu sync.Mutex // one message per Write: the SDK's and ours never interleave
	out     io.Writer

	mu        sync.Mutex
	cancelled map[string]struct{} // raw JSON ids of calls cancelled and not yet answered
}

func (st *stdioState) write(p []byte) (int, error) {
	st.writeMu.Lock()
	defer st.writeMu.Unlock()
	return st.out.Write(p)
}

// lineFilter hands the SDK only lines that decode as JSON-RPC.
type lineFilter struct {
	st      *stdioState
	r       *bufio.Reader
	pending []byte
	version string // the protocol version the client's initialize asked for
}

// noBatchesSince is the first MCP version without JSON-RPC batches; the SDK
// ends the session on a batch at it or later, so the filter answers one.
const noBatchesSince = "2025-06-18"

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.readLine()
		if len(line) > 0 {
			f.pending = f.check(line)
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break // hand over the last line, then report err on the next Read
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads one line without its newline, at most MaxLineBytes; a
// longer one is answered as a parse error and skipped to its end.
func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLineBytes+1 {
			f.reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a message over %d bytes", MaxLineBytes))
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = f.r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			line = line[:0]
			continue
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// check returns line, newline-terminated, if it is a JSON-RPC message (or
// batch); otherwise it answers it and returns nil. It notes cancellations.
func (f *lineFilter) check(line []byte) []byte {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	if !json.Valid(trimmed) {
		f.reply(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON")
		return nil
	}
	msgs, ok := decodeLine(trimmed)
	if !ok {
		f.reply(requestID(trimmed), jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message")
		return nil
	}
	if trimmed[0] == '[' && f.version >= noBatchesSince {
		f.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not part of MCP "+f.version)
		return nil
	}
	for _, m := range msgs {
		f.note(m)
	}
	return append(trimmed, '\n')
}

// decodeLine decodes a message or a batch of them.
func decodeLine(data []byte) ([]jsonrpc.Message, bool) {
	if data[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(data, &raws) != nil || len(raws) == 0 {
			return nil, false
		}
		var out []jsonrpc.Message
		for _, raw := range raws {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	m, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, false
	}
	return []jsonrpc.Message{m}, true
}

// note records a cancellation, and forgets one whose id a new call reuses.
func (f *lineFilter) note(m jsonrpc.Message) {
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return
	}
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	if req.IsCall() {
		delete(f.st.cancelled, idKey(req.ID.Raw()))
		if req.Method == "initialize" {
			var params struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(req.Params, &params) == nil {
				f.version = params.ProtocolVersion
			}
		}
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var params struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &params) != nil || params.RequestID == nil {
		return
	}
	id, err := jsonrpc.MakeID(params.RequestID)
	if err != nil {
		return
	}
	if len(f.st.cancelled) >= maxCancelled {
		clear(f.st.cancelled) // a client that cancels this much loses only the suppression
	}
	f.st.cancelled[idKey(id.Raw())] = struct{}{}
}

// reply writes a JSON-RPC error response (id null when unknown).
func (f *lineFilter) reply(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	_, _ = f.st.write(append(data, '\n')) // a broken stdout ends the session through the SDK's own writes
}

// requestID is the id of a JSON object that has one of a valid type.
func requestID(data []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	switch v.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return v.ID
	}
	return nil
}

// idKey is a comparable form of a JSON-RPC id: numbers and strings apart.
func idKey(raw any) string {
	switch v := raw.(type) {
	case string:
		return "s" + v
	case int64:
		return fmt.Sprintf("n%d", v)
	}
	return fmt.Sprintf("?%v", raw)
}

// cancelFilter writes the SDK's messages (one per Write, newline included),
// dropping the response to a call the client cancelled.
type cancelFilter struct{ st *stdioState }

func (c cancelFilter) Write(p []byte) (int, error) {
	c.st.mu.Lock()
	pending := len(c.st.cancelled) > 0
	c.st.mu.Unlock()
	if pending {
		if key, ok := responseID(p); ok {
			c.st.mu.Lock()
			_, drop := c.st.cancelled[key]
			delete(c.st.cancelled, key)
			c.st.mu.Unlock()
			if drop {
				return len(p), nil
			}
		}
	}
	return c.st.write(p)
}

func (cancelFilter) Close() error { return nil }

// responseID is the id key of a response message (one with result or
// error and no method).
func responseID(p []byte) (string, bool) {
	m, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p))
	if err != nil {
		return "", false
	}
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		return "", false
	}
	return idKey(r.ID.Raw()), true
}
