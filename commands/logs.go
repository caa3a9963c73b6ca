package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// LogsArgs are the logs command's arguments.
type LogsArgs struct {
	Count           int      `json:"count" short:"n" default:"50" word:"true" usage:"how many entries" desc:"Maximum number of log entries to return. Default: 50."`
	Direction       string   `json:"direction" enum:"head,tail" default:"tail" switch:"true" usage:"which end of the buffer" switches:"the oldest entries,the newest entries (default)" desc:"Return oldest entries first ('head') or newest first ('tail'). Default: 'tail'."`
	Levels          []string `json:"levels" enum:"Print,Info,Warning,Error" usage:"only these levels" desc:"Filter by log level. Default: all levels."`
	IncludeInternal bool     `json:"includeInternal" usage:"include studio-bridge's own [StudioBridge] lines" desc:"Include internal [StudioBridge] messages. Default: false."`
	Follow          bool     `json:"follow" short:"f" mcp:"-" usage:"keep printing new lines until interrupted (survives a bridge host failover)"`
}

func (a *LogsArgs) request() actions.LogsRequest {
	return actions.LogsRequest{Count: a.Count, Direction: a.Direction, Levels: a.Levels, IncludeInternal: a.IncludeInternal}
}

// LogsData is the logs command's output (the plugin's answer).
type LogsData struct {
	Entries        []Line `json:"entries"`
	Total          int    `json:"total"`
	BufferCapacity int    `json:"bufferCapacity"`
}

// readLogs runs the logs action: the entries oldest first, as the plugin
// answers.
func readLogs(ctx context.Context, env *Env, req actions.LogsRequest) (LogsData, error) {
	var res actions.LogsResult
	err := action(ctx, env, actions.Logs, req, &res, nil)
	return LogsData{Entries: linesOf(res.Entries), Total: res.Total, BufferCapacity: res.BufferCapacity}, err
}

// internalPrefix marks the plugin's own output lines.
const internalPrefix = "[StudioBridge]"

// Logs reads a session's output log.
var Logs = Define(Spec[LogsArgs, LogsData]{
	Definition: Definition{
		Name:           "logs",
		Title:          "Read Studio Output",
		Summary:        "Print a session's recent Output lines, or follow them live.",
		Description:    "Retrieve buffered output log lines from a Roblox Studio session. Returns recent log entries with timestamps and severity levels. Use this to check for errors, warnings, or print output.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		MCP:            true,
		LargeOutput:    true,
		Timeout:        10 * time.Second,
		Noun:           "Log query",
		DataLines:      true,
	},
	Run: func(ctx context.Context, env *Env, args *LogsArgs) (*Result, error) {
		if args.Count < 0 {
			return nil, UsageError{fmt.Errorf("logs: count must not be negative")}
		}
		if args.Follow {
			return nil, followLogs(ctx, env, args)
		}
		var data LogsData
		var err error
		if env.Session.Context == protocol.ContextClient {
			data, err = clientLogs(ctx, env, args.request()) // the server's mirrored lines left out (logs_mirror.go)
		} else {
			data, err = readLogs(ctx, env, args.request())
		}
		if err != nil {
			return nil, err
		}
		if data.Entries == nil {
			data.Entries = []Line{}
		}
		for i := range data.Entries {
			data.Entries[i] = data.Entries[i].Located()
		}
		var b strings.Builder
		for _, e := range data.Entries {
			b.WriteString(RenderLine(e))
		}
		res := &Result{Data: data, Text: b.String()}
		if len(data.Entries) == 0 {
			res.Note = "No log lines match."
			if !args.IncludeInternal {
				res.Note = "No log lines match (studio-bridge's own lines are hidden; --include-internal shows them)."
			}
		}
		return res, nil
	},
})

// RenderLine is one log line for people: the body, prefixed with its level
// unless it is plain print output, its script locations shown as files
// where the source map knows them.
func RenderLine(l Line) string {
	body := SourceMap().RewriteText(l.Body) // files first where the map knows them
	if l.Truncated {
		body += fmt.Sprintf(" … [cut by the plugin: the line had %d bytes]", l.Bytes)
	}
	if l.Level == "" || l.Level == "Print" {
		return body + "\n"
	}
	return fmt.Sprintf("[%s] %s\n", l.Level, body)
}

// followLogs prints the recent lines, then every new one until ctx ends.
//
// Lines carry the plugin's sequence number, one series for every line it
// captures. Follow subscribes to all of them, internal ones included, and
// filters here: a jump in the live series then means lines were really lost,
// and is reported. A line seen twice (the snapshot and the live stream
// overlap) is printed once. A plugin forgets its subscriptions when it
// reconnects (after a host failover), so whenever the session shows up with
// a new connection time follow subscribes again and reads back what was
// logged in between. On a client session, lines the server printed and
// Studio mirrored into the client are left out by the rule logs without
// --follow uses (mirror_stream.go).
func followLogs(ctx context.Context, env *Env, args *LogsArgs) error {
	sid := env.Session.SessionID
	events := env.Bridge.Events(ctx, sid)
	sessions := env.Bridge.WatchSessions(ctx)
	sub := actions.SubscribeRequest{Events: []string{actions.EventLog}, IncludeInternal: true}
	if err := action(ctx, env, actions.Subscribe, sub, nil, nil); err != nil {
		return fmt.Errorf("follow logs: %w", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = action(uctx, env, actions.Unsubscribe, sub, nil, nil)
	}()
	read := func(req actions.LogsRequest) ([]Line, error) {
		data, err := readLogs(ctx, env, req)
		return data.Entries, err
	}
	every := func(count int) actions.LogsRequest {
		return actions.LogsRequest{Count: count, Direction: "tail", IncludeInternal: true}
	}

	// The newest line of any kind, then the snapshot the user asked for: a
	// line between the two is in the snapshot or filtered out, and either
	// way not printed again when it arrives live.
	// A client session's live lines go through the mirror rule: the
	// window's server session is followed alongside (mirror_stream.go).
	show, stopMirror := mirrorStream(ctx, env, env.emit)
	defer stopMirror()

	newest, err := read(every(1))
	if err != nil {
		return fmt.Errorf("follow logs: %w", err)
	}
	snapshot := args.request()
	snapshot.Direction = "tail"
	var lines []Line
	if env.Session.Context == protocol.ContextClient {
		var data LogsData
		data, err = clientLogs(ctx, env, snapshot) // the server's mirrored lines left out
		lines = data.Entries
	} else {
		lines, err = read(snapshot)
	}
	if err != nil {
		return fmt.Errorf("follow logs: %w", err)
	}
	var last int64
	for _, l := range append(newest, lines...) {
		last = max(last, l.Seq)
	}
	for _, l := range lines {
		if keepLine(l, args) {
			env.emit(l)
		}
	}

	emit := func(l Line) {
		if l.Seq != 0 && l.Seq <= last {
			return
		}
		if last != 0 && l.Seq > last+1 {
			// Lines fell out of a buffer on the way (a reader far too slow,
			// or the plugin's ring buffer wrapping): say so.
			show(Line{Level: "Warning", Body: fmt.Sprintf("%s %d log lines were lost before reaching this terminal", internalPrefix, l.Seq-last-1), Timestamp: l.Timestamp}) // stamped as the line after the gap
		}
		last = max(last, l.Seq)
		if keepLine(l, args) {
			show(l)
		}
	}
	connectedAt := env.Session.ConnectedAt
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sessions:
			if !ok {
				return nil
			}
			if ev.Kind == protocol.SessionDisconnected || ev.Session.SessionID != sid || ev.Session.ConnectedAt.Equal(connectedAt) {
				continue
			}
			connectedAt = ev.Session.ConnectedAt
			if err := action(ctx, env, actions.Subscribe, sub, nil, nil); err != nil {
				if ctx.Err() == nil {
					env.Log.Warn("could not resubscribe to logs after the plugin reconnected", "err", err)
				}
				continue
			}
			missed, err := read(every(reconnectCatchUp))
			if err != nil && ctx.Err() == nil {
				env.Log.Warn("could not read the lines logged while the plugin reconnected", "err", err)
			}
			for _, l := range missed {
				emit(l)
			}
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if ev.Event != "log" {
				continue
			}
			var l Line
			if err := json.Unmarshal(ev.Payload, &l); err != nil {
				continue
			}
			if ev.Seq != 0 {
				l.Seq = ev.Seq
			}
			emit(l)
		}
	}
}

// reconnectCatchUp bounds how many lines follow reads back after the plugin
// reconnects: its default buffer.
const reconnectCatchUp = 2000

func keepLine(l Line, args *LogsArgs) bool {
	if !args.IncludeInternal && strings.HasPrefix(l.Body, internalPrefix) {
		return false
	}
	return len(args.Levels) == 0 || contains(args.Levels, l.Level)
}
