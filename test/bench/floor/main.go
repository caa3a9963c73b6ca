// Command floor is the floor for MCP tools/call latency: a bare go-sdk MCP
// server on stdio whose one tool, studio_state, answers at once with a
// constant of the size studio-bridge's studio_state returns. The MCP
// benchmark in test/bench starts it next to `studio-bridge mcp` and times
// both with the same client, so the difference is what studio-bridge adds
// (tool adapter, resolution, the bridge call to the plugin and back).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/test/benchutil"
)

func main() {
	s := sdk.NewServer(&sdk.Implementation{Name: "floor", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "studio_state", Description: "Answers at once.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{StructuredContent: benchutil.StateReply, Content: []sdk.Content{&sdk.TextContent{Text: string(benchutil.StateReply)}}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
