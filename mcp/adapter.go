package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// handler adapts one command to a tool call: decode the input, hand it to
// commands.Invoke, and render the Outcome (toolResult).
func handler(conn bridge.Conn, d *commands.Definition, opts Options, root *mapRoot) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		in, err := decodeInput(d, req.Params.Arguments)
		if err != nil {
			return invalidInput(err), nil
		}
		root.resolve(ctx, req.Session) // the source map's root: the client's (once)
		output, status, settle := progressSink(ctx, req)
		defer settle()
		timeout := opts.Timeout
		if in.timeout > 0 {
			timeout = in.timeout
		}
		o := commands.Invoke(ctx, commands.Request{Command: d, Args: in.args, Target: in.target,
			Env: commands.Env{Bridge: conn, Log: opts.Log, Timeout: timeout,
				Stdout: discard{}, Stderr: discard{}, Output: output, Status: status,
				// an agent's paths stay in the project (issue #22 item 5)
				Project: projectRoot(ctx, opts.Project, req.Session), Confine: true}})
		return toolResult(ctx, d, o, in)
	}
}

// toolResult is MCP's rendering of an Outcome: a result (structured, capped
// for large outputs); a tool error (isError) with the spec's texts for
// infrastructure failures and for invalid input (MCP 2025-11-25, SEP-1303);
// a JSON-RPC error only for a bridge that cannot be reached at all and for
// a call its client cancelled. A script error is a normal result.
func toolResult(ctx context.Context, d *commands.Definition, o commands.Outcome, in input) (*sdk.CallToolResult, error) {
	switch {
	case o.Kind == commands.Done:
	case ctx.Err() != nil:
		// The client cancelled: the stdio transport sends no answer (see
		// cancelFilter); any other gets a valid JSON-RPC code.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request cancelled: " + ctx.Err().Error()}
	case o.Unreachable:
		return nil, connectError(o)
	case o.Kind == commands.Usage:
		return invalidInput(o.Err), nil
	default:
		return errorResult(o, in.target), nil
	}
	res := o.Result
	if res.Unavailable != "" {
		return errorResult(commands.Classify(errors.New(res.Unavailable)), in.target), nil
	}
	data := res.Data
	if d.LargeOutput {
		var err error
		if data, err = capOutput(data, in.maxOut); err != nil {
			return errorResult(commands.Classify(err), in.target), nil
		}
	}
	out := &sdk.CallToolResult{StructuredContent: data}
	if res.Image != nil {
		out.Content = []sdk.Content{&sdk.ImageContent{Data: res.Image, MIMEType: "image/png"}}
	} else {
		out.Content = []sdk.Content{&sdk.TextContent{Text: marshalText(data)}}
	}
	return out, nil
}

// invalidInput is the tool error for arguments the command refuses: the
// spec's "Invalid input: …" text, worded for MCP (argument names as in the
// input schema).
func invalidInput(err error) *sdk.CallToolResult {
	var ue commands.UsageError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	body := map[string]any{"error": "Invalid input: " + commands.SpellError(err, Spelling)}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: marshalText(body)}}}
}

// cannotConnect is the spec's JSON-RPC error (section 7.2) for a bridge that
// cannot be reached at all.
const cannotConnect = "Cannot connect to studio-bridge. Is the bridge host running?"

// connectError is the spec's -32603 "Cannot connect to studio-bridge" for
// an outcome that reached no bridge host at all, with what happened as its
// data. A failover that did not finish in time stays a tool error
// (errorResult): the host was there.
func connectError(o commands.Outcome) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]string{"detail": o.Err.Error()})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: cannotConnect, Data: data}
}

// errorResult renders a failed outcome as the spec's isError result: its
// fixed text where the spec has one, with the real reason in detail.
func errorResult(o commands.Outcome, t bridge.Target) *sdk.CallToolResult {
	text, fixed := errorText(o, t)
	body := map[string]any{"error": text}
	if own := ownText(o.Err); fixed && own != text {
		body["detail"] = own // the spec's text is fixed; say what happened (and what to do) beside it
	}
	if o.Detail != "" {
		body["detail"] = o.Detail // which part of a path exists
	}
	if o.Kind == commands.Ambiguous {
		body["sessions"] = o.Sessions
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: marshalText(body)}}}
}

// errorText is the text of a failed outcome on MCP; fixed reports the
// spec's wording, which says less than the error itself.
func errorText(o commands.Outcome, t bridge.Target) (text string, fixed bool) {
	switch o.Resolve {
	case bridge.SessionNotFound:
		return o.Err.Error() + ". Call studio_sessions to see available sessions.", false
	case bridge.ContextUnavailable:
		if strings.Contains(o.Err.Error(), "Edit mode") {
			return o.Err.Error() + " Use context: edit or omit context.", false
		}
		return o.Err.Error() + " Call studio_sessions to see the connected contexts.", false
	case 0:
	default:
		return o.Err.Error(), false
	}
	switch o.Code {
	case protocol.CodeSessionNotFound:
		return fmt.Sprintf("Session not found: %s. Call studio_sessions to see available sessions.", t.SessionID), false
	case protocol.CodeBusy:
		return "Plugin is busy executing another script.", true
	case protocol.CodeHostUnavailable:
		return "No bridge host running. Start Studio with the studio-bridge plugin installed, then try again.", true
	}
	return ownText(o.Err), false
}

// ownText is an error's own text as MCP words it: a protocol error's
// message without the wrapping a command adds for people, argument names
// and next steps as an agent calls them.
func ownText(err error) string {
	var w *commands.Worded
	if errors.As(err, &w) {
		return w.Spell(Spelling)
	}
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return perr.Message
	}
	return commands.SpellError(err, Spelling)
}

// progressSink turns streamed lines into MCP progress notifications when
// the client asked for progress. settle, deferred by the handler, holds the
// result back a moment after the last notification: the TypeScript SDK (what
// most agents run) handles notifications a microtask after it reads them but
// responses at once, so a result read in the same chunk as the final
// notifications would orphan them.
func progressSink(ctx context.Context, req *sdk.CallToolRequest) (output func(commands.Line), status func(string), settle func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil, nil, func() {}
	}
	var mu sync.Mutex
	n := 0
	var last time.Time
	notify := func(message string) {
		mu.Lock()
		defer mu.Unlock()
		n++
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(n),
			Message:       message,
		})
		last = time.Now()
	}
	output = func(l commands.Line) { notify(strings.TrimSuffix(commands.RenderLine(l), "\n")) }
	// Status lines ("capturing the Studio viewport…") are what a terminal
	// shows while a command waits; an agent that asked for progress sees
	// them the same way.
	status = func(s string) {
		if s != "" {
			notify(s)
		}
	}
	settle = func() {
		mu.Lock()
		wait := time.Until(last.Add(progressSettle))
		mu.Unlock()
		if wait > 0 {
			time.Sleep(wait)
		}
	}
	return output, status, settle
}

// progressSettle is how long a result waits after the last progress
// notification (see progressSink). 5 ms lost the last notification now and
// then on a loaded 2-core CI machine, where the client reads the pipe late;
// it is paid only by calls that asked for progress.
const progressSettle = 25 * time.Millisecond

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
