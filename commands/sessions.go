package commands

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// SessionView is a session as commands report it.
type SessionView struct {
	protocol.SessionInfo
	UptimeMs int64 `json:"uptimeMs"`
}

// SessionsData is the sessions command's output.
type SessionsData struct {
	Sessions []SessionView `json:"sessions"`
}

// NoSessionsHint is what people see when nothing is connected.
const NoSessionsHint = "No active sessions. Is Studio running with the studio-bridge plugin installed?"

// Sessions lists connected Studio sessions.
var Sessions = Define(Spec[NoArgs, SessionsData]{
	Definition: Definition{
		Name:        "sessions",
		Title:       "List Studio sessions",
		Summary:     "List the Studio sessions connected to the bridge, grouped by Studio window.",
		Description: "List all running Roblox Studio sessions connected to studio-bridge. Returns session IDs, place names, Studio state, and connection metadata. Call this first to discover available sessions.",
		MCP:         true,
	},
	Run: func(ctx context.Context, env *Env, _ *NoArgs) (*Result, error) {
		done := env.StatusAfter("looking for Studio sessions…")
		list, err := env.Bridge.Sessions(ctx)
		done()
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		now := time.Now()
		data := SessionsData{Sessions: make([]SessionView, 0, len(list))}
		for _, s := range list {
			data.Sessions = append(data.Sessions, SessionView{SessionInfo: s, UptimeMs: now.Sub(s.ConnectedAt).Milliseconds()})
		}
		res := &Result{Data: data, Render: func() string { return RenderSessions(list, now, env.Aligned) }}
		if len(list) == 0 {
			res.Render, res.Unavailable, res.Note = nil, NoSessionsHint, noSessionsNote(env.Bridge)
		}
		return res, nil
	},
})

// RenderSessions is the people's table of sessions, one block per instance:
// columns aligned for a terminal, else separated by tabs for cut and awk.
func RenderSessions(list []protocol.SessionInfo, now time.Time, aligned bool) string {
	if len(list) == 0 {
		return NoSessionsHint + "\n"
	}
	var b strings.Builder
	var w io.Writer = &b
	var tw *tabwriter.Writer
	if aligned {
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		w = tw
	}
	fmt.Fprintln(w, "INSTANCE\tCONTEXT\tSTATE\tPLACE\tSESSION\tUP")
	for _, in := range bridge.GroupByInstance(list) {
		for _, s := range in.Sessions {
			place := s.PlaceName
			if s.PlaceID != 0 {
				place = fmt.Sprintf("%s (%d)", place, s.PlaceID)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", in.ID, s.Context, s.State, place, s.SessionID,
				now.Sub(s.ConnectedAt).Round(time.Second))
		}
	}
	if tw != nil {
		_ = tw.Flush() // into a strings.Builder, whose writes cannot fail
	}
	return b.String()
}
