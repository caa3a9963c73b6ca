package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
)

// Options configures a server.
type Options struct {
	// Version is reported to clients.
	Version string
	// Project is the project root the user named: --project, else
	// STUDIO_BRIDGE_PROJECT, resolved by the CLI (the server never reads
	// the environment). It wins over the client's roots (see projectRoot).
	Project string
	// ReadOnly leaves out every command that mutates Studio (studio_exec,
	// studio_play, studio_test: Definition.Mutates).
	ReadOnly bool
	// Tools, when set, is an allowlist of tool names.
	Tools []string
	// Log receives diagnostics; never stdout.
	Log *slog.Logger
	// Timeout, when positive, overrides every tool's default action
	// timeout (the global --timeout flag).
	Timeout time.Duration
}

// UnreachableWait is how long a call waits for a bridge host that could not
// be reached before it answers "Cannot connect to studio-bridge" (spec
// 7.2): a failover finishes well within it (about 0.3 s).
const UnreachableWait = 2 * time.Second

// ToolName is the MCP tool name of a command.
// A group's leaf is named by its path: studio_script_read.
func ToolName(d *commands.Definition) string {
	return "studio_" + strings.ReplaceAll(d.Path(), " ", "_")
}

// Exposed lists the commands a server with opts offers as tools. It fails on
// an allowlist entry that names no tool, so a typo does not silently hide
// everything.
func Exposed(opts Options) ([]*commands.Definition, error) {
	allowed := map[string]bool{}
	for _, t := range opts.Tools {
		allowed[strings.TrimSpace(t)] = true
	}
	var out []*commands.Definition
	known := map[string]bool{}
	for _, d := range commands.All {
		if !d.MCP {
			continue
		}
		known[ToolName(d)] = true
		if opts.ReadOnly && d.Mutates {
			continue
		}
		if len(allowed) > 0 && !allowed[ToolName(d)] {
			continue
		}
		out = append(out, d)
	}
	for name := range allowed {
		if !known[name] {
			var names []string
			for _, d := range commands.All {
				if d.MCP {
					names = append(names, ToolName(d))
				}
			}
			return nil, fmt.Errorf("--tools: unknown tool %q (tools: %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// New builds the MCP server over a bridge connection. The connection is
// shared by every tool call and outlives host failovers.
func New(conn bridge.Conn, opts Options) (*sdk.Server, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	defs, err := Exposed(opts)
	if err != nil {
		return nil, err
	}
	feed := newLogFeed(conn)
	s := sdk.NewServer(&sdk.Implementation{Name: "studio-bridge", Version: opts.Version}, &sdk.ServerOptions{
		Logger:       opts.Log,
		Capabilities: &sdk.ServerCapabilities{},
		// Clients may subscribe to studio://sessions (updated as sessions
		// come, go and change) and to a session's logs resource; the SDK
		// keeps the subscriptions.
		SubscribeHandler: func(_ context.Context, req *sdk.SubscribeRequest) error {
			if !subscribable(req.Params.URI) {
				// MCP's resource-not-found (-32002), with the URI as data,
				// as resources/read answers; a plain error would go out
				// with JSON-RPC code 0.
				return sdk.ResourceNotFoundError(req.Params.URI)
			}
			feed.subscribe(req.Session, req.Params.URI)
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *sdk.UnsubscribeRequest) error {
			feed.unsubscribe(req.Session, req.Params.URI)
			return nil
		},
		Instructions: "studio-bridge connects you to running Roblox Studio windows. Call studio_sessions first; " +
			"pass sessionId when several Studio windows are connected, and context (edit, server, client) in Play mode.",
	})
	tools := map[string]bool{}
	root := &mapRoot{flag: opts.Project}
	for _, d := range defs {
		s.AddTool(Tool(d), handler(conn, d, opts, root))
		tools[ToolName(d)] = true
	}
	s.AddReceivingMiddleware(unknownTools(tools))
	addResources(s, conn)
	feeds.Store(s, feed)
	return s, nil
}

// unknownTools answers a call of a tool this server does not offer with the
// spec's -32602 "Unknown tool: {name}" (the SDK's own text differs).
func unknownTools(tools map[string]bool) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if call, ok := req.(*sdk.CallToolRequest); ok && method == "tools/call" && call.Params != nil && !tools[call.Params.Name] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + call.Params.Name}
			}
			return next(ctx, method, req)
		}
	}
}

// Tool is the MCP description of a command.
func Tool(d *commands.Definition) *sdk.Tool {
	desc := d.Description
	if desc == "" {
		desc = d.Summary
	}
	return &sdk.Tool{
		Name:         ToolName(d),
		Title:        d.Title,
		Description:  desc,
		InputSchema:  InputSchema(d),
		OutputSchema: ToolOutputSchema(d),
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:   !d.Mutates,
			IdempotentHint: !d.Mutates,
		},
	}
}

// ServeStdio serves one client over stdin and stdout until it disconnects
// or ctx ends. A malformed line is answered and skipped, and a cancelled
// call gets no response (see stdioTransport).
func ServeStdio(ctx context.Context, s *sdk.Server, in io.Reader, out io.Writer) error {
	err := s.Run(ctx, stdioTransport(in, out))
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// marshalText is the JSON text of a result, for the text content block that
// accompanies structured content.
func marshalText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return string(raw)
}
