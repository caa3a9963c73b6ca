package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// exec --play / --run: a playtest as one step. Start the test in the
// window (which must be in Edit mode), wait for the DataModel the script
// runs in (the server, or the client with --context client), run the
// script there with live output, then end the test — also after a script
// error, a timeout or an interrupt — and answer with the script's result.

// StopTimeout bounds ending the test after the script, whatever happened
// to the script (an interrupted command still ends its test).
const StopTimeout = 20 * time.Second

// retargetTest resolves the window's edit session for --play and --run (a
// test starts there), keeping the context the caller asked for in args.
func retargetTest(a any, t bridge.Target) (bridge.Target, error) {
	args := a.(*ExecArgs)
	if !args.Play && !args.Run {
		return t, nil
	}
	if args.Play && args.Run {
		return t, UsageError{errors.New("exec: --play and --run are exclusive")}
	}
	want := t.Context
	switch {
	case want == "":
		want = protocol.ContextServer
	case want == protocol.ContextEdit:
		return t, UsageError{errors.New("exec: with --play or --run the script runs in the test: --context server (the default) or client")}
	case want == protocol.ContextClient && args.Run:
		return t, UsageError{errors.New("exec: a Run test (--run) has no client DataModel; use --play for --context client")}
	}
	args.testContext = want
	t.Context = protocol.ContextEdit
	return t, nil
}

func runInTest(ctx context.Context, env *Env, args *ExecArgs) (*Result, error) {
	mode := "play"
	if args.Run {
		mode = "run"
	}
	want := args.testContext
	if want == "" {
		want = protocol.ContextServer
	}
	in, err := StartTest(ctx, env, env.Session.InstanceID, mode, PlayTimeout)
	if err != nil {
		if ctx.Err() == nil && !hasTestSessions(in) && protocol.CodeOf(err) != protocol.CodeTimeout {
			return nil, err // nothing started
		}
		// a test may be starting: end it before answering
		return nil, errors.Join(err, stopAfter(ctx, env, in.ID))
	}
	target, ok := in.Get(want)
	if !ok { // StartTest waited for it; it went away since
		return nil, errors.Join(&protocol.Error{Code: protocol.CodeSessionDisconnected, Message: fmt.Sprintf("The test's %s session went away before the script could run.", want)}, stopAfter(ctx, env, in.ID))
	}
	scriptEnv := *env
	scriptEnv.Session = target
	data, runErr := execScript(ctx, &scriptEnv, args.Script)
	if stopErr := stopAfter(ctx, env, in.ID); stopErr != nil {
		// the window is still in the test: that is what the caller must
		// know first, and the exit code is the timeout's
		if runErr == nil && !data.Success {
			stopErr = fmt.Errorf("%w\nThe script failed first: %s", stopErr, data.Error)
		}
		return nil, stopErr
	}
	if runErr != nil {
		return nil, runErr
	}
	return execResult(data), nil
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
		return nil
	}
	return &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf("Could not end the test, so Studio is still in it: %v", err)}
}
