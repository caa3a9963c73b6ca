package terminal

import (
	"fmt"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// exec runs a Luau chunk in the attached session.
func (r *repl) exec(src string) {
	r.runCommand(commands.Exec, &commands.ExecArgs{Script: src})
}

// runCommand runs a registry command against the attached session and
// prints its result inline. A call to a session the bridge no longer knows
// reattaches (see reattach) and runs once more.
func (r *repl) runCommand(d *commands.Definition, args any) {
	if d.NeedsSession && !r.attached {
		r.failures++
		r.say("Not attached to a session: .sessions lists them, .connect <id> attaches.")
		return
	}
	ctx, done := r.running()
	defer done()
	timeout := d.Timeout
	if r.timeout > 0 {
		timeout = r.timeout
	}
	call := func() (*commands.Result, error) {
		env := &commands.Env{Command: d, Bridge: r.conn, Session: r.session, Timeout: timeout, Log: r.log, Aligned: r.aligned,
			Stdout: r.out, Stderr: r.msg, Output: func(l commands.Line) { r.printLine(l, d.DataLines) }}
		return d.Run(ctx, env, args)
	}
	res, err := call()
	if err != nil && d.NeedsSession && protocol.CodeOf(err) == protocol.CodeSessionNotFound && ctx.Err() == nil {
		// The host no longer knows the session, so the request reached no
		// plugin and running it again is safe.
		if !r.reattach(ctx) {
			return
		}
		res, err = call()
	}
	if err != nil {
		r.printError(err)
		return
	}
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
