package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestHTTPCancelledCallGetsNoResponse: over Streamable HTTP as on stdio, a
// call the client cancelled gets no response (its event stream ends
// without one), and the session goes on answering.
func TestHTTPCancelledCallGetsNoResponse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	pl := w.editStudio(t)
	s := w.server(t, Options{})
	srv := httptest.NewServer(HTTPHandler(s))
	defer srv.Close()
	defer func() {
		for ss := range s.Sessions() {
			_ = ss.Close() // no session outlives the test (goleak)
		}
	}()
	post := func(session, body string) (*http.Response, string) {
		t.Helper()
		resp, b, err := kit.PostMCP(srv.URL, body, func(req *http.Request) {
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			}
		})
		if err != nil {
			t.Error(err) // not Fatal: post also runs on a goroutine of its own
			return &http.Response{}, ""
		}
		return resp, string(b)
	}
	resp, _ := post("", kit.MCPInitialize)
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize: no session id (status %d)", resp.StatusCode)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	call := make(chan string, 1)
	go func() {
		_, body := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"studio_exec","arguments":{"script":"task.wait(60)"}}}`)
		call <- body
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(pl.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the plugin never received the script")
		}
		time.Sleep(5 * time.Millisecond)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	select {
	case body := <-call:
		if strings.Contains(body, `"id":2`) {
			t.Fatalf("the cancelled call was answered: %q", body)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the cancelled call's stream did not end")
	}
	// The session goes on: the next call is answered.
	if _, body := post(session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); !strings.Contains(body, `"id":3`) {
		t.Fatalf("ping after a cancellation: %q", body)
	}
}

// TestEventData: an event's data lines, joined.
func TestEventData(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ event, want string }{
		{"event: message\ndata: {\"id\":2}\n\n", `{"id":2}`},
		{"id: 7\ndata:{\"a\":1}\n\n", `{"a":1}`},
		{"data: a\ndata: b\n\n", "a\nb"},
		{": comment\n\n", ""},
	} {
		if got := string(eventData([]byte(tt.event))); got != tt.want {
			t.Errorf("eventData(%q) = %q, want %q", tt.event, got, tt.want)
		}
	}
}
