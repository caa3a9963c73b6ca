package commands

import (
	"context"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Request is one invocation of a command as a surface hands it over: the
// arguments it bound, the session the user named, and the surface's
// streams. Invoke does the rest.
type Request struct {
	Command *Definition
	// Args is a filled pointer from NewArgs or a Binder; nil means the
	// defaults.
	Args any
	// Target is the session the user named (--session, --context,
	// sessionId); Invoke adds the command's default context.
	Target bridge.Target
	// Wait is how long resolution waits for a matching session to connect.
	Wait time.Duration
	// Session, when set, is the session the surface is attached to (the
	// terminal): it is used as it is unless Retarget moves the target
	// (exec --play runs from the window's edit session).
	Session *protocol.SessionInfo
	// Connect, when set, joins the bridge network; Invoke calls it only
	// once the arguments are valid and only for commands that need the
	// network (the CLI starts or joins a host then). Otherwise Env.Bridge
	// is used.
	Connect func() (bridge.Conn, error)
	// Env carries the surface's streams, timeout, status line and output
	// sink; Invoke fills in Command, Bridge, Session and a default Timeout.
	Env Env
}

// Invoke runs one command: validate → retarget → resolve (waiting) → run,
// and classifies how it ended. It is the one invocation path of every
// surface; a surface only binds arguments and renders the Outcome.
func Invoke(ctx context.Context, req Request) Outcome {
	d := req.Command
	args := req.Args
	if args == nil {
		args = d.NewArgs()
	}
	env := req.Env
	env.Command = d
	if env.Timeout <= 0 {
		env.Timeout = d.Timeout
	}
	if err := d.Validate(args); err != nil {
		return Classify(err)
	}
	standalone := d.IsStandalone(args)
	target := req.Target
	target.DefaultContext = d.DefaultContext
	if standalone && d.NeedsSession {
		for _, given := range []struct {
			name string
			set  bool
		}{{"session", target.SessionID != ""}, {"context", target.Context != ""}, {"wait", req.Wait > 0}} {
			if given.set {
				return Classify(Usagef("%s does not apply: with these arguments %s runs without Studio, so there is no session to pick", ArgName(given.name), d.Path()))
			}
		}
	}
	attached := req.Session != nil
	if attached {
		target = bridge.Target{SessionID: req.Session.SessionID, DefaultContext: d.DefaultContext}
	}
	retargeted := false
	if d.NeedsSession && !standalone && d.retarget != nil {
		moved, err := d.retarget(args, target)
		if err != nil {
			return Classify(err)
		}
		retargeted, target = moved != target, moved
	}
	if !d.Local && !standalone && req.Connect != nil {
		conn, err := req.Connect()
		if err != nil {
			return Classify(err)
		}
		env.Bridge = conn
	}
	if d.NeedsSession && !standalone {
		switch {
		case attached && !retargeted:
			env.Session = *req.Session
		default:
			if attached { // the attached session's window, in the context Retarget chose
				target.SessionID = req.Session.InstanceID
			}
			done := func() {}
			if req.Wait > 0 {
				env.status("waiting for a Studio session…")
			} else {
				done = env.StatusAfter("looking for Studio sessions…")
			}
			s, err := bridge.ResolveWaiting(ctx, env.Bridge, target, req.Wait)
			done()
			env.status("")
			if err != nil {
				return Classify(err)
			}
			env.Session = s
		}
	}
	res, err := d.run(ctx, &env, args)
	if err != nil {
		return Classify(err)
	}
	return Outcome{Kind: Done, Result: res}
}
