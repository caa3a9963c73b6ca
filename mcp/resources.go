package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
)

// Resource URIs.
const (
	SessionsURI      = "studio://sessions"
	sessionLogsURI   = "studio://sessions/{sessionId}/logs"
	sessionURIPrefix = "studio://sessions/"
)

// addResources publishes the session list and each session's recent logs.
// Each connected session also appears as a concrete logs resource, so the
// resource list changes (and clients are notified) as sessions come and go.
func addResources(s *sdk.Server, conn bridge.Conn) {
	s.AddResource(&sdk.Resource{
		URI:         SessionsURI,
		Name:        "sessions",
		Title:       "Connected Studio sessions",
		Description: "The Roblox Studio sessions connected to studio-bridge, as studio_sessions returns them.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return runAsResource(ctx, conn, commands.Sessions, bridge.Target{}, req.Params.URI)
	})
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: sessionLogsURI,
		Name:        "session-logs",
		Title:       "Recent Output of a Studio session",
		Description: "The newest Output lines of one session, as studio_logs returns them with its defaults.",
		MIMEType:    "application/json",
	}, sessionLogs(conn))
}

// subscribable reports whether uri names a resource this server offers:
// the session list, or a session's logs (studio://sessions/{id}/logs).
func subscribable(uri string) bool {
	if uri == SessionsURI {
		return true
	}
	_, ok := logsSessionID(uri)
	return ok
}

// logsSessionID is the session id of a logs resource URI.
func logsSessionID(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, sessionURIPrefix)
	id, ok2 := strings.CutSuffix(id, "/logs")
	if !ok || !ok2 || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}

func sessionLogs(conn bridge.Conn) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		id, ok := logsSessionID(uri)
		if !ok {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		return runAsResource(ctx, conn, commands.Logs, bridge.Target{SessionID: id}, uri)
	}
}

// runAsResource reads a resource through commands.Invoke, with the
// command's defaults, and renders the Outcome as resources/read answers: a
// session that does not resolve is resource-not-found, a bridge that cannot
// be reached the spec's -32603.
func runAsResource(ctx context.Context, conn bridge.Conn, d *commands.Definition, t bridge.Target, uri string) (*sdk.ReadResourceResult, error) {
	o := commands.Invoke(ctx, commands.Request{Command: d, Target: t,
		Env: commands.Env{Bridge: conn, Stdout: discard{}, Stderr: discard{}}})
	var wrongToken *bridge.TokenError
	switch {
	case o.Unreachable:
		return nil, connectError(o)
	case errors.As(o.Err, &wrongToken):
		// A host is there and this server has the wrong token: say so in
		// the message itself, which every client shows.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: wrongToken.Error()}
	case o.Resolve != 0:
		return nil, sdk.ResourceNotFoundError(uri)
	case o.Kind != commands.Done:
		return nil, o.Err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: marshalText(o.Result.Data)}}}, nil
}

// WatchResources keeps one logs resource per connected session and tells
// subscribers when the session list changes, until ctx ends.
//
// It also announces new lines of each subscribed session's logs resource
// (notifications/resources/updated, at most once per LogUpdateInterval).
func WatchResources(ctx context.Context, s *sdk.Server, conn bridge.Conn) {
	if f, ok := feeds.Load(s); ok {
		fctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); f.(*logFeed).run(fctx, s) }()
		defer func() { stop(); <-done; feeds.Delete(s) }()
	}
	events := conn.WatchSessions(ctx)
	refresh := func() {
		list, err := conn.Sessions(ctx)
		if err != nil {
			return
		}
		for _, sess := range list {
			uri := sessionURIPrefix + sess.SessionID + "/logs"
			s.AddResource(&sdk.Resource{
				URI:      uri,
				Name:     "logs-" + sess.SessionID,
				Title:    "Output of " + sess.PlaceName + " (" + string(sess.Context) + ")",
				MIMEType: "application/json",
			}, sessionLogs(conn))
		}
	}
	refresh()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind == "disconnected" {
				s.RemoveResources(sessionURIPrefix + ev.Session.SessionID + "/logs")
			} else if ev.Kind == "connected" {
				refresh()
			}
			_ = s.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: SessionsURI})
		}
	}
}
