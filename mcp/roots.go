package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/project"
)

// rootsWait bounds the roots/list round trip: a client that does not
// answer it leaves the root to the working directory, not the call hanging.
const rootsWait = 2 * time.Second

// projectRoot resolves the project root for one tool call, only when the
// command reads files: flag (Options.Project: --project, else
// STUDIO_BRIDGE_PROJECT, both resolved by the CLI), else the first local
// folder among the client's roots (roots/list), else the working
// directory. The environment is not read here: the CLI has read it into
// flag, and a test names the root as an option rather than setting the
// process's environment.
func projectRoot(ctx context.Context, flag string, ss *sdk.ServerSession) func() (string, error) {
	return func() (string, error) {
		return project.RootWithClient(flag, noEnv, func() []string { return clientRoots(ctx, ss) })
	}
}

// noEnv is the getenv of project.RootWithClient: Options.Project already
// holds STUDIO_BRIDGE_PROJECT when that is how the user named the root.
func noEnv(string) string { return "" }

// clientRoots asks the client for its roots; a client without the roots
// capability answers an error, and then there are none. On MCP 2026-07-28
// and later a server may not send roots/list (SEP-2577 deprecates roots;
// the SDK refuses the request): such a client's project root is
// STUDIO_BRIDGE_PROJECT or the working directory, which is where clients
// start their stdio servers.
func clientRoots(ctx context.Context, ss *sdk.ServerSession) []string {
	if ss == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, rootsWait)
	defer cancel()
	//lint:ignore SA1019 roots stay functional through the deprecation window (SEP-2577), and issue #22 names them as the project root's source
	res, err := ss.ListRoots(ctx, nil)
	if err != nil || res == nil {
		return nil
	}
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		if r != nil {
			uris = append(uris, r.URI)
		}
	}
	return uris
}

// mapRoot points the process's source map at the client's project root:
// the first tool call asks its client for roots (roots/list) once, when
// neither --project nor STUDIO_BRIDGE_PROJECT names the root and the
// client declared the roots capability, so locations in every tool result
// (exec errors, logs, test failures, script reads) are the client's
// files, shown from its root. The map applies to the whole process (issue
// 24): over --http the first client's root wins, and a later
// roots/list_changed does not move it.
type mapRoot struct {
	flag string // --project
	once sync.Once
}

func (r *mapRoot) resolve(ctx context.Context, ss *sdk.ServerSession) {
	r.once.Do(func() {
		if r.flag != "" {
			return // the root is named (--project or STUDIO_BRIDGE_PROJECT); the CLI configured the map with it
		}
		if !hasRoots(ss) {
			return // a client that did not declare roots is not asked for them
		}
		if dir := project.FirstLocalRoot(clientRoots(ctx, ss)); dir != "" {
			commands.SetSourceMapRoot(dir)
		}
	})
}

// hasRoots says whether the client declared the roots capability when it
// initialized (the SDK reads it into RootsV2).
func hasRoots(ss *sdk.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	//lint:ignore SA1019 roots stay functional through the deprecation window (see clientRoots)
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}
