package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
)

// CallArgs are call's arguments.
type CallArgs struct {
	Action  string `json:"action" pos:"true" required:"true" usage:"protocol action to send (state, logs, query, exec, …)"`
	Payload string `json:"payload" pos:"true" usage:"JSON payload for the action (default: none)"`
}

// Call sends one raw protocol action to a session: a tool for plugin authors
// and tests, not for everyday use. Progress payloads stream to stdout as JSON
// lines as they arrive; the response payload follows.
var Call = Define(Spec[CallArgs, NoData]{
	Definition: Definition{
		Name:         "call",
		Summary:      "Send a raw protocol action to a Studio session and print the JSON it answers (for debugging).",
		NeedsSession: true,
		Hidden:       true,
		Timeout:      30 * time.Second,
	},
	Run: func(ctx context.Context, env *Env, args *CallArgs) (*Result, error) {
		var payload json.RawMessage
		if args.Payload != "" {
			if !json.Valid([]byte(args.Payload)) {
				return nil, UsageError{fmt.Errorf("payload is not valid JSON: %s", clip(args.Payload))}
			}
			payload = json.RawMessage(args.Payload)
		}
		out, err := env.Bridge.Call(ctx, env.Session.SessionID, args.Action, payload, bridge.CallOptions{
			Timeout: env.Timeout,
			OnProgress: func(p json.RawMessage) {
				fmt.Fprintf(env.Stdout, "%s\n", p)
			},
		})
		if err != nil {
			return nil, fmt.Errorf("call %s: %w", args.Action, err)
		}
		return &Result{Data: out, Text: string(out) + "\n"}, nil
	},
})

// UsageError marks a bad invocation; the CLI exits 2 for it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
