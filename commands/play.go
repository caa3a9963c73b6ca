package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// PlayArgs are the play command's arguments.
type PlayArgs struct {
	Action string `json:"action" pos:"true" word:"true" required:"true" enum:"start,stop,status" usage:"start, stop or status" desc:"'start' a playtest, 'stop' it, or report the window's 'status' (Edit, Play, Run or Paused)."`
	Mode   string `json:"mode" enum:"play,run" default:"play" usage:"with start: play (server and client) or run (server only, F8)" desc:"With action 'start': 'play' (a server and a client DataModel, the default) or 'run' (one server DataModel, Studio's Run/F8)."`
}

// PlayData is the play command's output: the window's mode once the
// command is done.
type PlayData struct {
	// State is the window's run mode: Edit, Play, Run or Paused.
	State      protocol.State `json:"state"`
	InstanceID string         `json:"instanceId"`
	// Sessions are the window's sessions, edit first.
	Sessions []PlaySession `json:"sessions"`
}

// PlaySession is one DataModel of the window.
type PlaySession struct {
	Context   protocol.Context `json:"context"`
	SessionID string           `json:"sessionId"`
}

// PlayTimeout bounds how long play start and stop wait for Studio.
const PlayTimeout = 60 * time.Second

// Play starts, stops and reports a playtest in one Studio window.
var Play = Define(Spec[PlayArgs, PlayData]{
	Definition: Definition{
		Name:    "play",
		Title:   "Start, stop or check a playtest",
		Summary: "Start or stop a playtest (Play or Run), or show the window's mode.",
		Description: "Control playtesting in a Roblox Studio window. 'start' begins a test (mode 'play': server and client DataModels; 'run': a server only) and returns once their sessions are connected; 'stop' ends it and returns once they are gone; " +
			"'status' reports the window's mode (Edit, Play, Run or Paused). While a test runs, studio_exec with context 'server' or 'client' runs code in it.",
		Help: "play start begins a playtest (--mode play: a server and a client DataModel, as Studio's Play; --mode run: a server only, as Run/F8) and returns once the test's sessions are connected; " +
			"play stop ends it and returns once they are gone; play status prints the window's mode (Edit, Play, Run or Paused) and its sessions. " +
			"While a test runs, exec --context server|client runs code in it.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		Mutates:        true,
		MCP:            true,
		Timeout:        PlayTimeout,
		Noun:           "Play control",
	},
	Run: func(ctx context.Context, env *Env, args *PlayArgs) (*Result, error) {
		switch args.Action {
		case "start":
			return playStart(ctx, env, args.Mode)
		case "stop":
			return playStop(ctx, env)
		default:
			in, err := window(ctx, env.Bridge, env.Session.InstanceID)
			if err != nil {
				return nil, err
			}
			return playResult(in), nil
		}
	},
})

// window returns the current sessions of one Studio window.
func window(ctx context.Context, conn bridge.Conn, instanceID string) (bridge.Instance, error) {
	list, err := conn.Sessions(ctx)
	if err != nil {
		return bridge.Instance{}, err
	}
	for _, in := range bridge.GroupByInstance(list) {
		if in.ID == instanceID {
			return in, nil
		}
	}
	return bridge.Instance{ID: instanceID}, nil
}

// windowState is the window's run mode: its edit session's state (the
// plugin reports the window's Play, Run or Paused there), else what its
// sessions show.
func windowState(in bridge.Instance) protocol.State {
	if s, ok := in.Get(protocol.ContextEdit); ok {
		switch s.State {
		case protocol.StateEdit, protocol.StatePlay, protocol.StateRun, protocol.StatePaused:
			if s.State == protocol.StateEdit && hasTestSessions(in) {
				break // the edit session has not caught up yet
			}
			return s.State
		}
	}
	if !hasTestSessions(in) {
		return protocol.StateEdit
	}
	if _, ok := in.Get(protocol.ContextClient); ok {
		return protocol.StatePlay
	}
	return protocol.StateRun
}

func hasTestSessions(in bridge.Instance) bool {
	_, server := in.Get(protocol.ContextServer)
	_, client := in.Get(protocol.ContextClient)
	return server || client
}

func playResult(in bridge.Instance) *Result {
	data := PlayData{State: windowState(in), InstanceID: in.ID, Sessions: []PlaySession{}}
	var b strings.Builder
	fmt.Fprintf(&b, "State:  %s\n", data.State)
	for _, s := range in.Sessions {
		data.Sessions = append(data.Sessions, PlaySession{Context: s.Context, SessionID: s.SessionID})
		fmt.Fprintf(&b, "  %-6s %s\n", s.Context, s.SessionID)
	}
	return &Result{Data: data, Text: b.String()}
}

// waitWindow waits until cond holds for the window, re-reading the session
// list on every session event, for at most d.
func waitWindow(ctx context.Context, env *Env, instanceID string, d time.Duration, cond func(bridge.Instance) bool) (bridge.Instance, error) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	events := env.Bridge.WatchSessions(wctx)
	tick := time.NewTicker(500 * time.Millisecond) // state changes come as events too; this is a safety net
	defer tick.Stop()
	for {
		in, err := window(wctx, env.Bridge, instanceID)
		if err == nil && cond(in) {
			return in, nil
		}
		if err != nil && wctx.Err() == nil {
			return in, err
		}
		select {
		case <-events:
		case <-tick.C:
		case <-wctx.Done():
			if ctx.Err() != nil {
				return in, ctx.Err()
			}
			return in, errWaitTimeout
		}
	}
}

var errWaitTimeout = errors.New("timed out")

func (env *Env) playTimeout() time.Duration {
	if env.Timeout > 0 {
		return env.Timeout
	}
	return PlayTimeout
}

func playStart(ctx context.Context, env *Env, mode string) (*Result, error) {
	in, err := StartTest(ctx, env, env.Session.InstanceID, mode, env.playTimeout())
	if err != nil {
		return nil, err
	}
	return playResult(in), nil
}

// NotStartedError is StartTest's error when it started nothing: the window
// is already in a test (perhaps the user's own, which is none of the
// caller's business to end), has no edit session, could not be read, or
// Studio refused the start. Any other StartTest error may leave a test
// starting, which a caller wrapping work in a test must end (inTest).
type NotStartedError struct{ Err error }

func (e *NotStartedError) Error() string { return e.Err.Error() }
func (e *NotStartedError) Unwrap() error { return e.Err }

// notStarted marks err as StartTest's refusal: nothing was started.
func notStarted(err error) error { return &NotStartedError{Err: err} }

// StartTest starts a test (mode play or run) in the window, which must be
// in Edit mode, and waits at most timeout until the test's sessions are
// connected. A *NotStartedError says it started nothing.
func StartTest(ctx context.Context, env *Env, instanceID, mode string, timeout time.Duration) (bridge.Instance, error) {
	if mode == "" {
		mode = "play"
	}
	in, err := window(ctx, env.Bridge, instanceID)
	if err != nil {
		return in, notStarted(err)
	}
	if st := windowState(in); st != protocol.StateEdit {
		return in, notStarted(&Worded{Code: protocol.CodeBusy, Format: "Studio is already in %s mode; %s first.", Args: []any{st, StepTo{Path: "play", Words: []string{"stop"}}}})
	}
	edit, ok := in.Get(protocol.ContextEdit)
	if !ok {
		return in, notStarted(&protocol.Error{Code: protocol.CodeInvalidPayload, Message: "This Studio window has no edit session connected; starting a test needs one."})
	}
	start := time.Now()
	done := env.StatusAfter(fmt.Sprintf("starting %s…", mode))
	defer done()
	raw, _ := json.Marshal(actions.PlayRequest{Action: actions.PlayStart, Mode: mode}) // a fixed shape: cannot fail
	if _, err := env.Bridge.Call(ctx, edit.SessionID, actions.Play, raw, bridge.CallOptions{Timeout: timeout}); err != nil {
		switch protocol.CodeOf(err) {
		case protocol.CodeUnknownAction:
			return in, notStarted(&protocol.Error{Code: protocol.CodeCapabilityUnsupported, Message: "This Studio's studio-bridge plugin cannot control playtests; update it with `studio-bridge install-plugin` and restart Studio."})
		case protocol.CodeBusy, protocol.CodeInvalidPayload:
			// the plugin refused before starting anything: a test already
			// runs (one the host has not seen yet), or this DataModel is
			// not the edit one
			return in, notStarted(err)
		}
		return in, err
	}
	want := []protocol.Context{protocol.ContextServer}
	if mode == "play" {
		want = append(want, protocol.ContextClient)
	}
	in, err = waitWindow(ctx, env, in.ID, timeout-time.Since(start), func(in bridge.Instance) bool {
		for _, c := range want {
			if _, ok := in.Get(c); !ok {
				return false
			}
		}
		return true
	})
	if errors.Is(err, errWaitTimeout) {
		return in, &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf("Play control timed out after %s: Studio started the test, but its %s session did not connect. %s",
			humanDuration(timeout), missing(in, want), NoPluginsInTestHint)}
	}
	return in, err
}

// NoPluginsInTestHint is what to do when a playtest's DataModels never
// report: Studio runs user plugins in them only with this setting on.
const NoPluginsInTestHint = `Studio may not load user plugins in playtests: turn on "Load User Plugins in Test Mode" in File > Studio Settings, then start the test again (studio-bridge doctor checks it during a playtest).`

func missing(in bridge.Instance, want []protocol.Context) string {
	var out []string
	for _, c := range want {
		if _, ok := in.Get(c); !ok {
			out = append(out, string(c))
		}
	}
	return strings.Join(out, " and ")
}

func playStop(ctx context.Context, env *Env) (*Result, error) {
	in, err := window(ctx, env.Bridge, env.Session.InstanceID)
	if err != nil {
		return nil, err
	}
	if !hasTestSessions(in) && windowState(in) == protocol.StateEdit {
		res := playResult(in)
		res.Note = "Studio is already in Edit mode."
		return res, nil
	}
	if err := EndTest(ctx, env, in, env.playTimeout()); err != nil {
		return nil, err
	}
	return playResult(stoppedWindow(ctx, env, in.ID)), nil
}

// EndTest ends the window's test: play stop relayed to its server session
// (StudioTestService:EndTest works only there), then waits until the test's
// sessions are gone. Its error says why the window may still be in a test.
func EndTest(ctx context.Context, env *Env, in bridge.Instance, timeout time.Duration) error {
	server, ok := in.Get(protocol.ContextServer)
	if !ok {
		return &protocol.Error{Code: protocol.CodeSessionNotFound, Message: "Cannot stop the test: its server session is not connected (StudioTestService:EndTest works only in the server DataModel). Stop it in Studio."}
	}
	start := time.Now()
	done := env.StatusAfter("stopping the test…")
	defer done()
	raw, _ := json.Marshal(actions.PlayRequest{Action: actions.PlayStop}) // a fixed shape: cannot fail
	callTimeout := min(timeout, 10*time.Second)
	_, callErr := env.Bridge.Call(ctx, server.SessionID, actions.Play, raw, bridge.CallOptions{Timeout: callTimeout})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch protocol.CodeOf(callErr) {
	case "", protocol.CodeSessionDisconnected, protocol.CodeUnknownOutcome:
		// the server may have gone before its answer left: the wait decides
	case protocol.CodeTimeout:
		return &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf("Cannot stop the test: the server DataModel did not answer within %s (a script that never yields blocks it). Stop it in Studio.", humanDuration(callTimeout))}
	case protocol.CodeUnknownAction:
		return &protocol.Error{Code: protocol.CodeCapabilityUnsupported, Message: "This Studio's studio-bridge plugin cannot stop playtests; update it with `studio-bridge install-plugin` and restart Studio."}
	default:
		return callErr
	}
	_, err := waitWindow(ctx, env, in.ID, timeout-time.Since(start), func(in bridge.Instance) bool { return !hasTestSessions(in) })
	if errors.Is(err, errWaitTimeout) {
		return &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf("Play control timed out after %s: the test's sessions are still connected. Stop it in Studio.", humanDuration(timeout))}
	}
	return err
}

// stoppedWindow gives the edit session a moment (bounded) to report Edit
// after the test's sessions have gone, so the answer says Edit.
func stoppedWindow(ctx context.Context, env *Env, instanceID string) bridge.Instance {
	in, err := waitWindow(ctx, env, instanceID, 3*time.Second, func(in bridge.Instance) bool {
		s, ok := in.Get(protocol.ContextEdit)
		return !ok || s.State == protocol.StateEdit
	})
	if err != nil {
		in, _ = window(ctx, env.Bridge, instanceID)
	}
	return in
}
