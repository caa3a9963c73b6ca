package emulator_test

// The MCP client of these tests: the official Go SDK client, over stdio, to
// `studio-bridge mcp` run as a user runs it.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession runs `studio-bridge mcp` (with extra args) against the host on
// port and connects the official Go SDK client to it over stdio.
func mcpSession(t *testing.T, port int, extra ...string) *sdk.ClientSession {
	t.Helper()
	cmd := userCmd(t, "", port, append([]string{"mcp"}, extra...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("mcp connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// mcpCall calls a tool and returns its structured answer (or, for a tool
// error, {"error": its text}) and whether it was a tool error; a protocol
// error fails the test.
func mcpCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &out)
	}
	if res.IsError && len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			out = map[string]any{"error": tc.Text}
		}
	}
	return out, res.IsError
}

// mcpRefused calls a tool that must be refused before it runs: a tool the
// server does not offer (a protocol error), or invalid input (a tool error
// "Invalid input: …", as MCP 2025-11-25 asks, so the model reads it). It
// returns the error's text; a call that is answered fails the test.
func mcpRefused(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err.Error()
	}
	if res.IsError && len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok && strings.Contains(tc.Text, `"error":"Invalid input: `) {
			return tc.Text
		}
	}
	t.Errorf("%s %v was answered; want it refused", name, args)
	return ""
}
