package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// StateData is the state command's output: the plugin's answer.
type StateData = actions.StateResult

// State reports a session's run mode and place.
var State = Define(Spec[NoArgs, StateData]{
	Definition: Definition{
		Name:           "state",
		Title:          "Get a Studio session's state",
		Summary:        "Show a session's run mode, place and game.",
		Description:    "Get the current state of a Roblox Studio session: run mode (Edit, Play, Paused, Run, Server, Client), place name, place ID, and game ID.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		MCP:            true,
		Timeout:        5 * time.Second,
		Noun:           "State query",
	},
	Run: func(ctx context.Context, env *Env, _ *NoArgs) (*Result, error) {
		var data StateData
		if err := action(ctx, env, actions.State, actions.StateRequest{}, &data, nil); err != nil {
			return nil, err
		}
		text := fmt.Sprintf("State:  %s\nPlace:  %s (placeId %d)\nGame:   %d\nTarget: %s session %s\n",
			data.State, data.PlaceName, data.PlaceID, data.GameID, env.Session.Context, env.Session.SessionID)
		return &Result{Data: data, Text: text}, nil
	},
})
