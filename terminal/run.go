package terminal

import (
	"fmt"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/project"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// exec runs a Luau chunk in the attached session.
func (r *repl) exec(src string) {
	r.runCommand(commands.Exec, &commands.ExecArgs{Script: src})
}

// runCommand runs a registry command against the attached session and
// prints its outcome inline. A call to a session the bridge no longer knows
// reattaches (see reattach) and runs once more.
func (r *repl) runCommand(d *commands.Definition, args any) {
	if d.NeedsSession && !r.attached {
		r.failures++
		r.say("Not attached to a session: .sessions lists them, .connect <id> attaches.")
		return
	}
	ctx, done := r.running()
	defer done()
	invoke := func() commands.Outcome {
		req := commands.Request{Command: d, Args: args, Env: commands.Env{Bridge: r.conn, Timeout: r.timeout, Log: r.log, Aligned: r.aligned,
			Stdout: r.out, Stderr: r.msg, Auth: r.auth, Output: func(l commands.Line) { r.printLine(l, d.DataLines) },
			Project: func() (string, error) { return project.Root(r.project, nil) },
			Confine: true}} // a REPL line's paths stay in the project (issue #22 item 5)
		if d.NeedsSession {
			s := r.session
			req.Session = &s
		}
		return commands.Invoke(ctx, req)
	}
	o := invoke()
	if o.Code == protocol.CodeSessionNotFound && d.NeedsSession && ctx.Err() == nil {
		// The host no longer knows the session, so the request reached no
		// plugin and running it again is safe.
		if !r.reattach(ctx) {
			return
		}
		o = invoke()
	}
	if o.Kind != commands.Done {
		r.printOutcome(o)
		return
	}
	res := o.Result
	if res == nil {
		// The command printed as it went (logs --follow) and has ended.
		if ctx.Err() != nil && r.ctx.Err() == nil {
			r.printColoured("33", "stopped")
		}
		return
	}
	fmt.Fprint(r.out, res.People())
	for _, remark := range []string{res.Unavailable, res.Note} {
		if remark != "" {
			r.say("%s", remark)
		}
	}
	if res.Failure != "" {
		r.printFailure(res.Failure)
	}
}
