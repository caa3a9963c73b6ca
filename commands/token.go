package commands

import (
	"context"

	"github.com/studio-bridge/studio-bridge/authtoken"
)

// TokenArgs picks which secret the token command prints.
type TokenArgs struct {
	MCP bool `json:"mcp" usage:"print the MCP token (the bearer credential of mcp --http, not the user's token)"`
}

// TokenData is the token command's output.
type TokenData struct {
	Token  string `json:"token"`
	Source string `json:"source"` // the token file's path, or the environment variable
}

// Token prints the user's token, creating it if this is the first process
// that needs it: what a client elsewhere (a devcontainer, WSL, --remote)
// sets as STUDIO_BRIDGE_TOKEN. With --mcp it prints the MCP token instead:
// what an MCP client sends to `mcp --http` as a bearer header (through
// STUDIO_BRIDGE_MCP_TOKEN in its environment). Never an MCP tool: an agent
// has no business reading the secrets that guard the bridge.
var Token = Define(Spec[TokenArgs, TokenData]{
	Definition: Definition{
		Name:    "token",
		Summary: "Print the token that lets a process join the bridge host (as " + authtoken.EnvToken + " for --remote clients); --mcp: the MCP token.",
		Local:   true,
	},
	Run: func(_ context.Context, env *Env, args *TokenArgs) (*Result, error) {
		resolve := env.Auth.Resolve
		if args.MCP {
			resolve = env.Auth.ResolveMCP
		}
		tok, err := resolve()
		if err != nil {
			return nil, err
		}
		return &Result{Data: TokenData{Token: tok.Value, Source: tok.Source}, Text: tok.Value + "\n"}, nil
	},
})
