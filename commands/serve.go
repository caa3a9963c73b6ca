package commands

import (
	"context"
	"fmt"

	"github.com/studio-bridge/studio-bridge/bridge"
)

// Serve keeps this process on the bridge network until interrupted: as the
// host, or as a standby client that takes over when the host dies. Role
// changes after the banner are logged at info level.
var Serve = Define(Spec[NoArgs, NoData]{
	Definition: Definition{
		Name:        "serve",
		Summary:     "Run the bridge host and keep it alive (or stand by to take over if a host already runs).",
		LongRunning: true,
	},
	Run: func(ctx context.Context, env *Env, _ *NoArgs) (*Result, error) {
		if env.Bridge.Role() == bridge.RoleHost {
			fmt.Fprintln(env.Stderr, "studio-bridge host is serving; Studio plugins can connect. Press Ctrl-C to stop.")
		} else {
			fmt.Fprintln(env.Stderr, "A studio-bridge host is already running; standing by to take over if it stops. Press Ctrl-C to stop.")
		}
		<-ctx.Done()
		return &Result{}, nil
	},
})
