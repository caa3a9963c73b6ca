package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// action runs one plugin action for a session command and decodes its
// answer into out. Timeouts read the same on every surface: "State query
// timed out after 5 seconds."
func action(ctx context.Context, env *Env, name string, payload any, out any, onProgress func(json.RawMessage)) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("%s: encode payload: %w", name, err)
	}
	timeout := env.Timeout
	if timeout <= 0 && env.Command != nil {
		timeout = env.Command.Timeout
	}
	noun := name
	if env.Command != nil && env.Command.Noun != "" {
		noun = env.Command.Noun
	}
	res, err := env.Bridge.Call(ctx, env.Session.SessionID, name, raw, bridge.CallOptions{Timeout: timeout, OnProgress: onProgress})
	if err != nil {
		if protocol.CodeOf(err) == protocol.CodeTimeout {
			return &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf("%s timed out after %s.", noun, humanDuration(timeout))}
		}
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return &protocol.Error{Code: protocol.CodeInvalidPayload, Message: fmt.Sprintf("%s: the plugin answered an unexpected shape: %v", name, err)}
	}
	return nil
}

// humanDuration writes whole seconds as "5 seconds", anything else as Go does.
func humanDuration(d time.Duration) string {
	if d%time.Second == 0 {
		if d == time.Second {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return d.String()
}
