package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioPeer is a raw JSON-RPC client of ServeStdio over pipes.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

// serveStdio runs ServeStdio for s over pipes until the test ends.
func serveStdio(t *testing.T, s *sdk.Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() { p.done <- ServeStdio(ctx, s, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("the stdio server did not end after stdin closed")
		}
		cancel()
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next reads the next message the server wrote.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	type lineErr struct {
		line string
		err  error
	}
	ch := make(chan lineErr, 1)
	go func() {
		l, err := p.out.ReadString('\n')
		ch <- lineErr{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatalf("reading the server's output: %v", r.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			p.t.Fatalf("the server wrote a line that is not JSON: %q", r.line)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message from the server within 10 s")
		return nil
	}
}

// response reads messages until the response with id; it fails on the way
// at a response with the id in never.
func (p *stdioPeer) response(id any, never ...any) map[string]any {
	p.t.Helper()
	for {
		m := p.next()
		if _, ok := m["method"]; ok {
			continue // a notification
		}
		for _, n := range never {
			if jsonEqual(m["id"], n) {
				p.t.Fatalf("the server answered request %v, which the client had cancelled: %v", n, m)
			}
		}
		if jsonEqual(m["id"], id) {
			return m
		}
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := p.response(1.0); r["error"] != nil {
		p.t.Fatalf("initialize: %v", r["error"])
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
}

// TestStdioMalformedLines: a line that is not JSON-RPC is answered with the
// JSON-RPC error for it and the server keeps serving (the SDK alone ends the
// session on the first one).
func TestStdioMalformedLines(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := w.server(t, Options{})
	p := serveStdio(t, s)
	tests := []struct {
		name, line string
		id         any
		code       float64
	}{
		{"not JSON", `hello`, nil, -32700},
		{"cut short", `{"jsonrpc":"2.0","id":5,"method":`, nil, -32700},
		{"JSON, not a message", `{"hello":"world"}`, nil, -32600},
		{"a message without a version", `{"id":6,"method":"ping"}`, 6.0, -32600},
		{"an empty batch", `[]`, nil, -32600},
		{"too long", `"` + strings.Repeat("x", MaxLineBytes) + `"`, nil, -32700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.send(tt.line)
			m := p.next()
			if !jsonEqual(m["id"], tt.id) || errorCode(m) != tt.code {
				t.Fatalf("answer %v; want id %v and code %v", m, tt.id, tt.code)
			}
		})
	}
	p.send("") // blank lines are skipped silently
	p.initialize()
	// MCP 2025-06-18 has no batches (the SDK would end the session).
	p.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`)
	if m := p.next(); m["id"] != nil || errorCode(m) != -32600 {
		t.Fatalf("a batch at 2025-06-18: %v; want -32600", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if r := p.response(2.0); r["result"] == nil {
		t.Fatalf("tools/list after the bad lines: %v", r)
	}
}

// TestCancelledCallGetsNoResponse: after notifications/cancelled the server
// sends no response for that call (MCP: the receiver SHOULD NOT), and keeps
// answering others, including a later call that reuses nothing.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pl := w.editStudio(t)
	s := w.server(t, Options{})
	// Know when the cancelled call's handler has returned: its response,
	// if any, is written right after.
	finished := make(chan struct{}, 1)
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				finished <- struct{}{}
			}
			return res, err
		}
	})
	p := serveStdio(t, s)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"studio_exec","arguments":{"script":"task.wait(60)"}}}`)
	deadline := time.Now().Add(10 * time.Second)
	for len(pl.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the plugin never received the script")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p.response(3.0, 2.0)
	// A new call after the cancellation is answered as usual.
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"studio_state","arguments":{}}}`)
	if r := p.response(4.0, 2.0); r["result"] == nil {
		t.Fatalf("studio_state after a cancellation: %v", r)
	}
}
