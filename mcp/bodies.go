package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// MaxHTTPBodyBytes bounds one MCP request body over HTTP (the SDK's own
// default bound).
const MaxHTTPBodyBytes = sdk.DefaultMaxRequestBodyBytes

// Server limits of `mcp --http` (issue 22, attack 8: connections that each
// stall a large body made the server hold gigabytes).
const (
	// HTTPBodyTimeout bounds how long a request body may take to arrive,
	// from when the handler starts reading it; past it the request is
	// answered 408 and its budget given back.
	HTTPBodyTimeout = 10 * time.Second
	// HTTPBodyBudgetBytes bounds the bytes of request bodies being read at
	// once, for all connections together: a body reserves its declared
	// Content-Length (MaxHTTPBodyBytes when it declares none) before a byte
	// is read. A body that finds no room within HTTPBodyTimeout is answered
	// 503 with Retry-After.
	HTTPBodyBudgetBytes = 8 * MaxHTTPBodyBytes
	// MaxHTTPConns bounds the open connections of the server (LimitConns);
	// more wait in the listen backlog until one closes.
	MaxHTTPConns = 64
)

// BoundBodies checks every POST body before the SDK decodes it: at most
// MaxHTTPBodyBytes (413 otherwise), nested at most protocol.MaxJSONDepth
// deep and valid JSON (400 with a JSON-RPC parse error, -32700, otherwise).
// The SDK's decoder recurses once per nesting level, so a body of a few
// megabytes of "[" would overflow its stack and kill the process. Bodies
// being read share HTTPBodyBudgetBytes and must arrive within
// HTTPBodyTimeout, so stalled uploads can neither grow the server nor hold
// it for long.
func BoundBodies(next http.Handler) http.Handler {
	return boundBodies(next, bodyLimits{
		timeout: HTTPBodyTimeout,
		max:     MaxHTTPBodyBytes,
		budget:  semaphore.NewWeighted(HTTPBodyBudgetBytes),
	})
}

// bodyLimits are BoundBodies' bounds (tests shrink them).
type bodyLimits struct {
	timeout time.Duration
	max     int64
	budget  *semaphore.Weighted
}

func boundBodies(next http.Handler, lim bodyLimits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > lim.max {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now()) // not a byte of it is read
			w.Header().Set("Connection", "close")
			writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("Invalid request: the body exceeds %d bytes", lim.max))
			return
		}
		body, status, msg := readBody(w, r, lim)
		if status != 0 {
			// What is left of the body is never read: drop the connection
			// after the answer instead of draining a stalled upload.
			w.Header().Set("Connection", "close")
			if status == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "1")
			}
			writeRPCError(w, status, jsonrpc.CodeInvalidRequest, msg)
			return
		}
		if err := protocol.CheckDepth(body, protocol.MaxJSONDepth); err != nil {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: "+err.Error())
			return
		}
		if !json.Valid(body) {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// readBody reads r's body within lim: it reserves the body's size in the
// budget (waiting at most lim.timeout), then reads it by a read deadline
// lim.timeout away. A failure is an HTTP status and a message.
func readBody(w http.ResponseWriter, r *http.Request, lim bodyLimits) ([]byte, int, string) {
	need := lim.max
	if r.ContentLength >= 0 {
		need = r.ContentLength
	}
	deadline := time.Now().Add(lim.timeout)
	rc := http.NewResponseController(w)
	// The read deadline covers the wait for the budget too: after a
	// failure the server may still try to drain what is left of the body,
	// and a stalled upload must not hold it there.
	_ = rc.SetReadDeadline(deadline) // not every writer supports it; the budget still bounds memory
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	if err := lim.budget.Acquire(ctx, need); err != nil {
		_ = rc.SetReadDeadline(time.Now()) // nothing more is read from it
		return nil, http.StatusServiceUnavailable, "Server busy: too many request bodies are arriving at once; retry in a moment"
	}
	defer lim.budget.Release(need)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, need))
	if err == nil {
		_ = rc.SetReadDeadline(time.Time{}) // the connection may carry more requests
		return body, 0, ""
	}
	_ = rc.SetReadDeadline(time.Now()) // nothing more is read from it
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("Invalid request: the body exceeds %d bytes", mbe.Limit)
	}
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		return nil, http.StatusRequestTimeout, fmt.Sprintf("Invalid request: the body did not arrive within %s", lim.timeout)
	}
	return nil, http.StatusBadRequest, "Parse error: could not read the request body"
}

// LimitConns returns ln accepting at most n connections open at once: once
// n are open, Accept waits until one closes (the rest wait in the listen
// backlog), so connections cannot pile up without bound.
func LimitConns(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: c, free: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// slotConn gives its slot back when closed (once).
type slotConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	JSONRPC string  `json:"jsonrpc"`
	ID      *string `json:"id"` // always null: the request's id could not be read
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeRPCError answers with a JSON-RPC error whose id is null.
func writeRPCError(w http.ResponseWriter, status int, code int64, message string) {
	resp := rpcError{JSONRPC: "2.0"}
	resp.Error.Code, resp.Error.Message = code, message
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}
