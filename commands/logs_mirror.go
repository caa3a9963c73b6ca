package commands

import (
	"context"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// In Play, Studio's LogService reports the server DataModel's Output in the
// client DataModel too (issue 25 item 11, a live report; the emulator's
// --log-mirror), so the client session's plugin captures every server line
// a second time. A mirrored line belongs to the server session: logs for a
// client session leaves out the lines its window's server session has.

// MirrorSkew is how far apart (milliseconds, as the plugin stamps lines) a
// server line and its copy in the client may be stamped and still count as
// one line.
const MirrorSkew = 2000.0

// clientLogs reads a client session's entries with the server's mirrored
// lines left out: both sessions are read with room for the mirrored lines,
// then the client's are cut back to the count asked for. Without a server
// session in the window (Run mode has none; a test whose server runs no
// plugin), the client's entries are all there is.
func clientLogs(ctx context.Context, env *Env, req actions.LogsRequest) (LogsData, error) {
	in, err := window(ctx, env.Bridge, env.Session.InstanceID)
	server, ok := in.Get(protocol.ContextServer)
	if err != nil || !ok {
		return readLogs(ctx, env, req)
	}
	wide := req
	if req.Count > 0 {
		wide.Count = min(2*req.Count+100, 100000)
	}
	data, err := readLogs(ctx, env, wide)
	if err != nil {
		return data, err
	}
	senv := *env
	senv.Session = server
	sdata, err := readLogs(ctx, &senv, wide)
	if err != nil {
		return data, nil // the server cannot be read now: the client's lines as they are
	}
	kept := dropMirrored(data.Entries, sdata.Entries)
	data.Total -= len(data.Entries) - len(kept) // the mirrored lines among those read; older ones still count

	if req.Count > 0 && len(kept) > req.Count {
		if req.Direction == "head" {
			kept = kept[:req.Count]
		} else {
			kept = kept[len(kept)-req.Count:]
		}
	}
	data.Entries = kept
	return data, nil
}

// withoutMirrored leaves out of a client exec's collected output the lines
// its window's server session also logged (mirrored, so the server's). The
// lines streamed while the exec ran were shown already; the result's logs
// (--json, MCP) carry each line once. Without a server session, or when it
// cannot be read, the lines stay as they are.
func withoutMirrored(ctx context.Context, env *Env, lines []Line) []Line {
	if env.Session.Context != protocol.ContextClient || len(lines) == 0 {
		return lines
	}
	in, err := window(ctx, env.Bridge, env.Session.InstanceID)
	server, ok := in.Get(protocol.ContextServer)
	if err != nil || !ok {
		return lines
	}
	senv := *env
	senv.Session = server
	req := actions.LogsRequest{Count: min(2*len(lines)+100, 100000), Direction: "tail", IncludeInternal: true}
	sdata, err := readLogs(ctx, &senv, req)
	if err != nil {
		return lines
	}
	return dropMirrored(lines, sdata.Entries)
}
