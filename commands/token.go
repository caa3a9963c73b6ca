package commands

import (
	"context"

	"github.com/studio-bridge/studio-bridge/authtoken"
)

// TokenData is the token command's output.
type TokenData struct {
	Token  string `json:"token"`
	Source string `json:"source"` // the token file's path, or STUDIO_BRIDGE_TOKEN
}

// Token prints the user's token, creating it if this is the first process
// that needs it: what a client elsewhere (a devcontainer, WSL, --remote)
// sets as STUDIO_BRIDGE_TOKEN. Never an MCP tool: an agent has no business
// reading the secret that guards the bridge.
var Token = Define(Spec[NoArgs, TokenData]{
	Definition: Definition{
		Name:    "token",
		Summary: "Print the token that lets a process join the bridge host (as " + authtoken.EnvToken + " for --remote clients).",
		Local:   true,
	},
	Run: func(context.Context, *Env, *NoArgs) (*Result, error) {
		tok, err := authtoken.Resolve()
		if err != nil {
			return nil, err
		}
		return &Result{Data: TokenData{Token: tok.Value, Source: tok.Source}, Text: tok.Value + "\n"}, nil
	},
})
