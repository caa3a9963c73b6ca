package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// handler adapts one command to a tool call: decode and validate the input,
// resolve the session, run the command, and shape the result. Infrastructure
// failures become isError results with the spec's texts; a script error is a
// normal result; bad input is JSON-RPC -32602.
func handler(conn bridge.Conn, d *commands.Definition, opts Options) sdk.ToolHandler {
	log, timeout := opts.Log, d.Timeout
	if opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, target, maxOut, err := decodeInput(d, req.Params.Arguments)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid input: " + err.Error()}
		}
		output, status, settle := progressSink(ctx, req)
		defer settle()
		env := &commands.Env{Command: d, Bridge: conn, Log: log, Timeout: timeout,
			Stdout: discard{}, Stderr: discard{}, Output: output, Status: status}
		if d.NeedsSession && d.Retarget != nil {
			if target, err = d.Retarget(args, target); err != nil {
				var usage commands.UsageError
				if errors.As(err, &usage) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid input: " + usage.Err.Error()}
				}
				return errorResult(err, target), nil
			}
		}
		if d.NeedsSession {
			if env.Session, err = conn.Resolve(ctx, target); err != nil {
				if cerr := connectError(err); cerr != nil {
					return nil, cerr
				}
				return errorResult(err, target), nil
			}
		}
		res, err := d.Run(ctx, env, args)
		if err != nil {
			var usage commands.UsageError
			switch {
			case ctx.Err() != nil:
				// The client cancelled: the stdio transport sends no answer
				// (see cancelFilter); any other gets a valid JSON-RPC code.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request cancelled: " + ctx.Err().Error()}
			case connectError(err) != nil:
				return nil, connectError(err)
			case errors.As(err, &usage):
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid input: " + usage.Err.Error()}
			}
			return errorResult(err, target), nil
		}
		if res.Unavailable != "" {
			return errorResult(errors.New(res.Unavailable), target), nil
		}
		data := res.Data
		if d.LargeOutput {
			if data, err = capOutput(data, maxOut); err != nil {
				return errorResult(err, target), nil
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
}

// decodeInput checks tool arguments against the command's arguments (types,
// enums, required, no unknown properties) and fills its Args struct.
func decodeInput(d *commands.Definition, raw json.RawMessage) (any, bridge.Target, int, error) {
	maxOut := DefaultMaxOutput
	args, target, err := decodeArgs(d, raw, &maxOut)
	return args, target, maxOut, err
}

func decodeArgs(d *commands.Definition, raw json.RawMessage, maxOut *int) (any, bridge.Target, error) {
	target := bridge.Target{DefaultContext: d.DefaultContext}
	in := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, target, errors.New("arguments must be a JSON object")
		}
	}
	args := d.NewArgs()
	fields := map[string]commands.Arg{}
	for _, a := range commands.Fields(d.Args) {
		if !a.NoMCP {
			fields[a.Name] = a
		}
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := in[k]
		switch {
		case d.NeedsSession && k == "sessionId":
			if err := json.Unmarshal(v, &target.SessionID); err != nil {
				return nil, target, fmt.Errorf("sessionId must be a string")
			}
		case d.LargeOutput && k == "maxOutputBytes":
			var n float64
			if err := json.Unmarshal(v, &n); err != nil || n != float64(int(n)) || n < MinMaxOutput || n > MaxMaxOutput {
				return nil, target, fmt.Errorf("maxOutputBytes must be a whole number from %d to %d", MinMaxOutput, MaxMaxOutput)
			}
			*maxOut = int(n)
		case d.NeedsSession && k == "context":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, target, fmt.Errorf("context must be a string")
			}
			c, err := protocol.ParseContext(s)
			if err != nil || c == "" {
				return nil, target, fmt.Errorf("context must be one of edit, client, server (got %q)", s)
			}
			target.Context = c
		default:
			a, ok := fields[k]
			if !ok {
				return nil, target, fmt.Errorf("unknown property %q; %s takes %s", k, ToolName(d), propertyList(d))
			}
			if err := setJSON(args, a, v); err != nil {
				return nil, target, err
			}
		}
	}
	for _, a := range fields {
		if _, ok := in[a.Name]; !ok && (a.Required || a.MCPOnly) {
			return nil, target, fmt.Errorf("missing required property %q", a.Name)
		}
	}
	if err := d.Validate(args); err != nil {
		var ue commands.UsageError
		if errors.As(err, &ue) {
			return nil, target, ue.Err
		}
		return nil, target, err
	}
	return args, target, nil
}

func setJSON(args any, a commands.Arg, v json.RawMessage) error {
	f := a.Value(args)
	if a.JSON {
		ptr := reflect.New(a.Type)
		if err := json.Unmarshal(v, ptr.Interface()); err != nil {
			return fmt.Errorf("%s: %v", a.Name, err)
		}
		f.Set(ptr.Elem())
		return nil
	}
	switch a.Kind {
	case reflect.Bool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return fmt.Errorf("%s must be a boolean", a.Name)
		}
		f.SetBool(b)
	case reflect.Int:
		var n float64
		if json.Unmarshal(v, &n) != nil || n != float64(int64(n)) {
			return fmt.Errorf("%s must be a whole number", a.Name)
		}
		f.SetInt(int64(n))
	case reflect.Slice:
		var list []string
		if json.Unmarshal(v, &list) != nil {
			return fmt.Errorf("%s must be an array of strings", a.Name)
		}
		f.Set(reflect.ValueOf(list))
	default:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("%s must be a string", a.Name)
		}
		f.SetString(s)
	}
	return nil
}

func propertyList(d *commands.Definition) string {
	var names []string
	if d.NeedsSession {
		names = append(names, "sessionId", "context")
	}
	for _, a := range commands.Fields(d.Args) {
		if !a.NoMCP {
			names = append(names, a.Name)
		}
	}
	if d.LargeOutput {
		names = append(names, "maxOutputBytes")
	}
	if len(names) == 0 {
		return "no properties"
	}
	return strings.Join(names, ", ")
}

// cannotConnect is the spec's JSON-RPC error (section 7.2) for a bridge that
// cannot be reached at all.
const cannotConnect = "Cannot connect to studio-bridge. Is the bridge host running?"

// connectError is the spec's -32603 "Cannot connect to studio-bridge" when
// err says no bridge host could be reached at all (bridge.UnreachableError),
// with what happened as its data; otherwise nil. A failover that did not
// finish in time stays a tool error (errorResult): the host was there.
func connectError(err error) *jsonrpc.Error {
	var ue *bridge.UnreachableError
	if !errors.As(err, &ue) {
		return nil
	}
	data, _ := json.Marshal(map[string]string{"detail": ue.Error()})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: cannotConnect, Data: data}
}

// errorResult maps a failure to the spec's isError result.
func errorResult(err error, t bridge.Target) *sdk.CallToolResult {
	body := map[string]any{"error": errorText(err, t)}
	if protocol.CodeOf(err) == protocol.CodeHostUnavailable {
		body["detail"] = err.Error() // the spec's text is fixed; say what happened beside it
	}
	if hint := commands.Hint(err); hint != "" {
		body["detail"] = hint // which part of a path exists
	}
	var re *bridge.ResolveError
	if errors.As(err, &re) && (re.Kind == bridge.MultipleInstances || re.Kind == bridge.AmbiguousSession) {
		body["sessions"] = re.Sessions
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: marshalText(body)}}}
}

func errorText(err error, t bridge.Target) string {
	var re *bridge.ResolveError
	if errors.As(err, &re) {
		switch re.Kind {
		case bridge.SessionNotFound:
			return re.Error() + ". Call studio_sessions to see available sessions."
		case bridge.ContextUnavailable:
			if strings.Contains(re.Error(), "Edit mode") {
				return re.Error() + " Use context: edit or omit context."
			}
			return re.Error() + " Call studio_sessions to see the connected contexts."
		}
		return re.Error()
	}
	switch protocol.CodeOf(err) {
	case protocol.CodeSessionNotFound:
		return fmt.Sprintf("Session not found: %s. Call studio_sessions to see available sessions.", t.SessionID)
	case protocol.CodeBusy:
		return "Plugin is busy executing another script."
	case protocol.CodeHostUnavailable:
		return "No bridge host running. Start Studio with the studio-bridge plugin installed, then try again."
	}
	var perr *protocol.Error
	if errors.As(err, &perr) {
		return perr.Message
	}
	return err.Error()
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
