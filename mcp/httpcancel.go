package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler is studio-bridge's Streamable HTTP endpoint for s: the SDK's
// handler behind, from the outside in, a case-insensitive Host (for the
// SDK's DNS-rebinding check), cross-origin protection, bounded bodies and
// the dropping of answers to cancelled calls.
func HTTPHandler(s *sdk.Server) http.Handler {
	return CanonicalHost(http.NewCrossOriginProtection().Handler(BoundBodies(DropCancelled(
		sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{})))))
}

// DropCancelled keeps Streamable HTTP from answering a call the client has
// cancelled: MCP says the receiver "SHOULD NOT send a response for the
// cancelled request", and the SDK sends one (-32603) anyway. It does over
// HTTP what stdioTransport's cancelFilter does on stdio.
//
// A call is a POST whose answer streams back as server-sent events; a
// notifications/cancelled naming it arrives in another POST of the same
// session. The filter remembers which calls of each session are in flight
// (so what it keeps is bounded by them) and marks the cancelled ones; the
// call's response event is then left out of its stream, which still ends
// as the SDK ends it. Progress and other events pass through. It expects
// bodies already read and bounded (BoundBodies).
func DropCancelled(next http.Handler) http.Handler {
	c := &httpCancels{inflight: map[string]map[string]bool{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		session := r.Header.Get("Mcp-Session-Id")
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if session == "" || json.Unmarshal(body, &m) != nil || m.Method == "" {
			next.ServeHTTP(w, r) // a batch, a response, or before a session exists
			return
		}
		switch {
		case m.Method == "notifications/cancelled":
			c.cancel(session, rawID(m.Params.RequestID))
			next.ServeHTTP(w, r)
		case len(m.ID) > 0:
			id := rawID(m.ID)
			c.start(session, id)
			defer c.end(session, id)
			next.ServeHTTP(&dropResponse{ResponseWriter: w, drop: func(resp []byte) bool {
				return c.cancelled(session, id) && responds(resp, id)
			}}, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// httpCancels is what DropCancelled knows of each session's calls: in
// flight, and whether cancelled (raw JSON ids, compacted).
type httpCancels struct {
	mu       sync.Mutex
	inflight map[string]map[string]bool // session → id → cancelled
}

func (c *httpCancels) start(session, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[session] == nil {
		c.inflight[session] = map[string]bool{}
	}
	c.inflight[session][id] = false
}

func (c *httpCancels) end(session, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inflight[session], id)
	if len(c.inflight[session]) == 0 {
		delete(c.inflight, session)
	}
}

// cancel marks id cancelled if it is in flight (a cancel of a finished or
// unknown call is ignored, as MCP allows, and costs nothing).
func (c *httpCancels) cancel(session, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.inflight[session][id]; ok {
		c.inflight[session][id] = true
	}
}

func (c *httpCancels) cancelled(session, id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight[session][id]
}

// rawID is a JSON-RPC id as compact JSON: the number 2 and the string "2"
// stay apart, as JSON-RPC keeps them.
func rawID(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// responds reports whether data (one event's payload) is the response to
// id: a message with that id and no method.
func responds(data []byte, id string) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(data, &m) == nil && m.Method == "" && len(m.ID) > 0 && rawID(m.ID) == id
}

// dropResponse passes a call's server-sent events through whole, leaving
// out the one drop picks. The SDK writes each event with one Write; a
// partial event is held until its blank line arrives. Any other content
// (a JSON answer, an error page) passes through untouched.
type dropResponse struct {
	http.ResponseWriter
	drop    func(data []byte) bool
	pending []byte
}

func (d *dropResponse) Write(p []byte) (int, error) {
	if !strings.HasPrefix(d.Header().Get("Content-Type"), "text/event-stream") {
		return d.ResponseWriter.Write(p)
	}
	d.pending = append(d.pending, p...)
	for {
		i := bytes.Index(d.pending, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		event := d.pending[:i+2]
		if !d.drop(eventData(event)) {
			if _, err := d.ResponseWriter.Write(event); err != nil {
				return 0, err
			}
		}
		d.pending = d.pending[i+2:]
	}
}

// Unwrap lets http.ResponseController reach the connection (the SDK
// flushes after each event).
func (d *dropResponse) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// eventData is the data of one server-sent event (its data lines joined).
func eventData(event []byte) []byte {
	var data [][]byte
	for line := range bytes.SplitSeq(bytes.TrimRight(event, "\n"), []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	return bytes.Join(data, []byte("\n"))
}
