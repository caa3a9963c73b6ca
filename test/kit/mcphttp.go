package kit

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// MCPInitialize is an MCP initialize request, the first a Streamable HTTP
// client posts.
const MCPInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// PostMCP posts body to an MCP Streamable HTTP endpoint as a client does
// (JSON, accepting JSON or an event stream), on a connection of its own so
// that no request rides on another's, and returns the answer with its body
// read and closed. edit, if not nil, changes the request first (headers,
// Host).
func PostMCP(url, body string, edit func(*http.Request)) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if edit != nil {
		edit(req)
	}
	// A request that says "Expect: 100-continue" sends its body only once
	// the server asks for it, so a server refusing it unread (413) answers
	// before the body is written.
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: 10 * time.Second}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}
