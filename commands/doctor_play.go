package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// DoctorPlayWait is how long doctor --active waits for the DataModels of
// the playtest it starts to report (Studio loads a test in a few seconds;
// a user plugin that Studio does not load there never reports). A
// --timeout given by the user replaces it.
const DoctorPlayWait = 30 * time.Second

// playProbe is doctor --active's short playtest in one window: whether
// doctor started one, what came of it, and whether it could stop it.
type playProbe struct {
	ran     bool   // doctor started a test (and so must stop it)
	note    string // why no test ran, or how starting it failed
	stopErr error  // the test doctor started is still running
}

func doctorPlayWait(env *Env) time.Duration {
	if env.Command != nil && env.Timeout > 0 && env.Timeout != env.Command.Timeout {
		return env.Timeout
	}
	return DoctorPlayWait
}

// playtestProbe starts a playtest in the window (which is in Edit), waits
// for its DataModels to report, probes the edit session again during the
// test (recording), then stops the test. It returns the window as it was
// during the test and the probe's facts from then; where no test ran, the
// facts passed in. Said first on stderr.
func playtestProbe(ctx context.Context, env *Env, conn bridge.Conn, in bridge.Instance, edit protocol.SessionInfo, facts ProbeFacts) (bridge.Instance, ProbeFacts, playProbe) {
	var pp playProbe
	if !edit.HasCapability("play") {
		pp.note = "the plugin cannot start playtests (update it with studio-bridge install-plugin)"
		return in, facts, pp
	}
	if !facts.PluginConnection && facts.Stream != "" && facts.Stream != "ok" {
		// each test DataModel would need a stream of its own, and none is
		// free: a plugin running there could not report, so the test
		// would tell nothing (and could not be stopped from here)
		pp.note = "doctor started no playtest: without PluginConnectionService each of its DataModels needs a web stream of its own, and none is free (studio.streams)"
		return in, facts, pp
	}
	if env.Stderr != nil {
		fmt.Fprintf(env.Stderr, "doctor --active: starting a short playtest in window %s to see whether Studio runs the plugin in it and records undo steps during it; doctor stops it again\n", in.ID)
	}
	pe := *env
	pe.Bridge = conn
	wait := doctorPlayWait(env)
	during, err := StartTest(ctx, &pe, in.ID, "play", wait)
	var refused *NotStartedError
	if errors.As(err, &refused) {
		pp.note = "doctor could not start a playtest: " + err.Error()
		return in, facts, pp
	}
	if ctx.Err() != nil {
		return in, facts, pp
	}
	pp.ran = true
	if during.ID == "" {
		during, _ = window(ctx, conn, in.ID)
	}
	again, perr := probe(ctx, env, conn, edit, false)
	switch {
	case perr != nil:
		pp.note = "the probe during the playtest failed: " + perr.Error()
	case !again.TestRunning && !during.Playing():
		// Studio refused or ended the test: the start's error says why
		pp.ran = false
		pp.note = "the playtest doctor started did not run"
		if err != nil {
			pp.note += ": " + err.Error()
		}
	default:
		facts.Recording, facts.TestRunning = again.Recording, again.TestRunning
	}
	if pp.ran {
		pp.stopErr = stopDoctorTest(ctx, &pe, in.ID, wait)
	}
	return during, facts, pp
}

// stopDoctorTest ends the test doctor started. Only the test's server
// DataModel can end it (StudioTestService:EndTest), so where Studio runs
// no plugin in the test, the user must.
func stopDoctorTest(ctx context.Context, env *Env, instanceID string, wait time.Duration) error {
	in, err := window(ctx, env.Bridge, instanceID)
	if err != nil {
		return err
	}
	if _, ok := in.Get(protocol.ContextServer); !ok {
		return errors.New("no DataModel of the playtest runs the plugin, so doctor cannot end it (StudioTestService:EndTest works only in the test's server): stop it in Studio (Stop, Shift+F5)")
	}
	return EndTest(ctx, env, in, wait)
}

// amend adds what doctor's playtest did to the checks it decided.
func (pp playProbe) amend(checks []Check) []Check {
	for i := range checks {
		c := &checks[i]
		if c.Key != "studio.pluginsInTest" && c.Key != "studio.recordingInPlay" {
			continue
		}
		switch {
		case pp.ran:
			c.Detail += " (seen in a playtest doctor --active started)"
		case pp.note != "":
			c.Detail += "; " + pp.note
		}
		if pp.stopErr != nil && c.Key == "studio.pluginsInTest" {
			c.Detail += "; doctor could not stop its playtest: " + pp.stopErr.Error()
			if c.Status == StatusOK || c.Status == StatusNA {
				c.Status = StatusDegraded
			}
			if c.Fix == "" {
				c.Fix = "stop the playtest in Studio"
			} else {
				c.Fix += "; stop the playtest doctor started in Studio"
			}
		}
	}
	return checks
}
