package terminal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// start attaches to the session the terminal starts with, waiting up to
// wait for one to connect. While it waits, Ctrl-C stops waiting (the
// terminal then starts detached, as Ctrl-C at the prompt cancels what runs)
// and Ctrl-D exits, which start reports.
func (r *repl) start(target bridge.Target, wait time.Duration) (quit bool) {
	if wait > 0 {
		fmt.Fprintf(r.msg, "Waiting up to %s for a Studio session (Ctrl-C stops waiting, Ctrl-D exits)…\n", wait)
	}
	ctx, done := r.running()
	r.waiting.Store(true)
	s, err := bridge.ResolveWaiting(ctx, r.conn, target, wait)
	r.waiting.Store(false)
	stopped := ctx.Err() != nil && r.ctx.Err() == nil // by Ctrl-C
	done()
	switch {
	case r.quit.Load():
		return true
	case err == nil:
		r.attach(s)
	case stopped:
		fmt.Fprintln(r.msg, "Stopped waiting. Not attached: .sessions lists the sessions, .connect <id> attaches.")
	default:
		r.printError(err)
		r.notAttached(err)
	}
	return false
}

// notAttached says how to attach after resolving a session failed.
func (r *repl) notAttached(err error) {
	var re *bridge.ResolveError
	switch {
	case errors.As(err, &re) && len(re.Sessions) > 0:
		fmt.Fprintln(r.msg, "Not attached: pick a session above with .connect <id> (a session id, an instance id or a unique prefix).")
	case errors.As(err, &re) && re.Kind == bridge.ContextUnavailable:
		fmt.Fprintln(r.msg, "Not attached: .sessions lists the sessions; .connect <id> or .context <edit|server|client> attaches.")
	default:
		fmt.Fprintln(r.msg, "Not attached. Use .sessions and .connect <id> once Studio is running.")
	}
}

// reattach replaces the attached session, which the bridge no longer
// knows, with the session of the same Studio window and DataModel (Play
// restarted, or Studio came back): or, if that window is gone, with the one
// session in the same context in any window, when there is exactly one.
// Failing that it detaches. It reports whether the terminal is attached.
func (r *repl) reattach(ctx context.Context) bool {
	old := r.session
	list, err := r.conn.Sessions(ctx)
	if err != nil {
		r.printError(err)
		return false
	}
	s, ok := successor(old, list)
	if ok {
		r.session = s
		fmt.Fprintf(r.msg, "re-attached to %s [%s] (new session %s)\n", s.PlaceName, s.Context, s.SessionID)
		return true
	}
	r.attached = false
	r.printColoured("33", fmt.Sprintf("Session %s of %s [%s] is gone and nothing replaces it: detached.", old.SessionID, old.PlaceName, old.Context))
	if len(list) > 0 {
		fmt.Fprint(r.msg, commands.RenderSessions(list, time.Now(), r.aligned))
		fmt.Fprintln(r.msg, "Attach with .connect <id> (a session id, an instance id or a unique prefix), or .context <edit|server|client>.")
	} else {
		fmt.Fprintln(r.msg, "No Studio session is connected: .sessions lists them once Studio is back, .connect <id> attaches.")
	}
	return false
}

// successor picks the session that replaces old, which has gone: see
// reattach.
func successor(old protocol.SessionInfo, list []protocol.SessionInfo) (protocol.SessionInfo, bool) {
	var sameContext []protocol.SessionInfo
	windowLeft := false
	for _, s := range list {
		if s.SessionID == old.SessionID {
			continue
		}
		if s.InstanceID == old.InstanceID {
			if s.Context == old.Context {
				return s, true
			}
			windowLeft = true
		}
		if s.Context == old.Context {
			sameContext = append(sameContext, s)
		}
	}
	if !windowLeft && len(sameContext) == 1 {
		return sameContext[0], true
	}
	return protocol.SessionInfo{}, false
}

func (r *repl) attach(s protocol.SessionInfo) {
	r.session, r.attached = s, true
	fmt.Fprintf(r.msg, "Attached to %s [%s] (%s, session %s).\n", s.PlaceName, s.Context, s.State, s.SessionID)
}

// connect attaches to the session rest names, by session id, instance id
// or a prefix of one that matches only one; with no argument, to the only
// Studio window, in the context the terminal starts in.
func (r *repl) connect(rest []string) {
	if len(rest) > 1 {
		fmt.Fprintln(r.msg, "usage: .connect [id] (a session id, an instance id or a unique prefix)")
		return
	}
	var s protocol.SessionInfo
	var err error
	if len(rest) == 0 {
		s, err = r.conn.Resolve(r.ctx, bridge.Target{DefaultContext: r.defaultContext})
	} else {
		s, err = r.findSession(rest[0])
	}
	if err != nil {
		r.printError(err)
		return
	}
	r.attach(s)
}

// findSession resolves what .connect <id> names: a session id, an
// instanceId (its session in the terminal's default context) or a unique
// prefix of one, by the resolver every surface shares (bridge.Resolve).
func (r *repl) findSession(id string) (protocol.SessionInfo, error) {
	list, err := r.conn.Sessions(r.ctx)
	if err != nil {
		return protocol.SessionInfo{}, err
	}
	s, err := bridge.Resolve(list, bridge.Target{SessionID: id, DefaultContext: r.defaultContext})
	var re *bridge.ResolveError
	if err != nil && !errors.As(err, &re) {
		err = sessionChoiceError{err, list}
	}
	return s, err
}

// sessionChoiceError is a failed .connect, shown with the sessions to
// choose from.
type sessionChoiceError struct {
	error
	sessions []protocol.SessionInfo
}

func (e sessionChoiceError) Unwrap() error { return e.error }

func (r *repl) switchContext(rest []string) {
	if len(rest) != 1 {
		fmt.Fprintln(r.msg, "usage: .context <edit|server|client>")
		return
	}
	c, err := protocol.ParseContext(rest[0])
	if err != nil || c == "" {
		r.printError(fmt.Errorf("unknown context %q: use edit, server or client", rest[0]))
		return
	}
	if !r.attached {
		s, err := r.conn.Resolve(r.ctx, bridge.Target{Context: c})
		if err != nil {
			r.printError(err)
			return
		}
		r.attach(s)
		return
	}
	list, err := r.conn.Sessions(r.ctx)
	if err != nil {
		r.printError(err)
		return
	}
	for _, s := range list {
		if s.InstanceID == r.session.InstanceID && s.Context == c {
			r.attach(s)
			return
		}
	}
	r.printError(fmt.Errorf("this Studio window has no %s session (is it in Play mode?)", c))
}
