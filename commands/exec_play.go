package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// exec --play / --run and test --play / --run: a playtest as one step.
// Start the test in the window (which must be in Edit mode), wait for the
// DataModel the work runs in (the server, or the client with --context
// client), run it there with live output, then end the test — also after
// an error, a timeout or an interrupt — and answer with the work's result.

// StopTimeout bounds ending the test after the script, whatever happened
// to the script (an interrupted command still ends its test).
const StopTimeout = 20 * time.Second

// Playtest are the arguments of a command that can wrap its work in a
// playtest (exec, test).
type Playtest struct {
	Play bool `json:"play" usage:"start a playtest (server and client), run in it (on the server, or --context client), then stop the test" desc:"Start a playtest (a server and a client DataModel) in the window, run in it (on the server unless context is 'client'), then stop the test: one call for edit, play, observe, stop. The window must be in Edit mode."`
	Run  bool `json:"run" usage:"like --play with a Run test (server only, F8)" desc:"Like play, with a Run test (one server DataModel, Studio's F8)."`

	// testContext is the test's DataModel the work runs in, set by
	// retargetTest.
	testContext protocol.Context
}

// choice is what p chose, for command cmd.
func (p *Playtest) choice(cmd string) playChoice {
	return playChoice{play: p.Play, run: p.Run, context: &p.testContext, cmd: cmd}
}

// playChoice is what --play or --run chose, for a command that can wrap
// its work in a playtest (exec, test).
type playChoice struct {
	play, run bool
	// context is where Retarget records the test's DataModel the work runs
	// in (server or client), in the command's arguments.
	context *protocol.Context
	// cmd names the command in errors.
	cmd string
}

// mode is the test to start: play or run.
func (c playChoice) mode() string {
	if c.run {
		return "run"
	}
	return "play"
}

// retargetTest resolves the window's edit session for --play and --run (a
// test starts there), keeping the context the caller asked for in the
// arguments (playChoice.context). It is the Retarget of every playable command.
func retargetTest(c playChoice, t bridge.Target) (bridge.Target, error) {
	cmd := c.cmd
	if !c.play && !c.run {
		return t, nil
	}
	if c.play && c.run {
		return t, UsageError{fmt.Errorf("%s: --play and --run are exclusive", cmd)}
	}
	want := t.Context
	switch {
	case want == "":
		want = protocol.ContextServer
	case want == protocol.ContextEdit:
		return t, UsageError{fmt.Errorf("%s: with --play or --run it runs in the test: --context server (the default) or client", cmd)}
	case want == protocol.ContextClient && c.run:
		return t, UsageError{fmt.Errorf("%s: a Run test (--run) has no client DataModel; use --play for --context client", cmd)}
	}
	*c.context = want
	t.Context = protocol.ContextEdit
	return t, nil
}

// inTest is --play and --run for any command: start the test in the window
// of env.Session (its edit session, as retargetTest chose), run work with
// env.Session set to the test's DataModel the choice names, then end the
// test — also after work failed, timed out or was interrupted — and answer
// with work's result. If the test cannot be ended, that is the error (a
// TIMEOUT): the window is still in it, and the caller must know that first.
func inTest(ctx context.Context, env *Env, c playChoice, work func(env *Env) (*Result, error)) (*Result, error) {
	want := *c.context
	if want == "" {
		want = protocol.ContextServer
	}
	in, err := StartTest(ctx, env, env.Session.InstanceID, c.mode(), PlayTimeout)
	if err != nil {
		var refused *NotStartedError
		if errors.As(err, &refused) {
			// nothing started: a test already running (the user's own) is
			// not this command's to end
			return nil, err
		}
		if ctx.Err() == nil && !hasTestSessions(in) && protocol.CodeOf(err) != protocol.CodeTimeout {
			return nil, err // nothing started
		}
		// a test may be starting: end it before answering
		return nil, errors.Join(err, stopAfter(ctx, env, in.ID))
	}
	target, ok := in.Get(want)
	if !ok { // StartTest waited for it; it went away since
		return nil, errors.Join(&protocol.Error{Code: protocol.CodeSessionDisconnected, Message: fmt.Sprintf("The test's %s session went away before it could run.", want)}, stopAfter(ctx, env, in.ID))
	}
	testEnv := *env
	testEnv.Session = target
	res, workErr := work(&testEnv)
	if stopErr := stopAfter(ctx, env, in.ID); stopErr != nil {
		if workErr == nil && res != nil && res.Failure != "" {
			stopErr = fmt.Errorf("%w\nBefore that: %s", stopErr, res.Failure)
		}
		return nil, stopErr
	}
	return res, workErr
}

// stopAfter ends the window's test on a context of its own, so an
// interrupted command still leaves the window in Edit. Its error is a
// TIMEOUT: the test could not be ended.
func stopAfter(ctx context.Context, env *Env, instanceID string) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	in, err := window(sctx, env.Bridge, instanceID)
	if err == nil && !hasTestSessions(in) {
		// the test may still be coming up (an interrupted start): wait a
		// little for its server before concluding there is none
		in, err = waitWindow(sctx, env, instanceID, 3*time.Second, func(in bridge.Instance) bool {
			_, ok := in.Get(protocol.ContextServer)
			return ok || windowState(in) == protocol.StateEdit
		})
		if errors.Is(err, errWaitTimeout) {
			err = nil
		}
		if !hasTestSessions(in) {
			return nil
		}
	}
	if err == nil {
		err = EndTest(sctx, env, in, StopTimeout)
	}
	if err == nil {
		// the edit session reports Edit a moment after the test's sessions
		// go: wait for it (bounded), so that the next command, perhaps
		// another --play, finds the window in Edit
		stoppedWindow(sctx, env, instanceID)
		return nil
	}
	return &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf("Could not end the test, so Studio is still in it: %v", err)}
}
