package cloudtest

import (
	"context"
	"time"
)

// Executor runs a task's script as an Open Cloud game server would, in
// place of an Outcome the test wrote down: test/emulator implements one
// that runs the script in the emulator's Luau runtime against the Rojo
// project the place is built from. The stand-in does not interpret
// uploaded place files; what a version holds is the executor's business.
type Executor interface {
	// Execute runs job and returns how it ended: State COMPLETE with
	// Results, or FAILED with Code and Message; Logs as "TYPE: text". It
	// must return soon after ctx ends (the task's timeout, or the server
	// closing); the server then decides the task's end itself.
	Execute(ctx context.Context, job Job) Outcome
}

// Job is one task for an Executor.
type Job struct {
	Universe, Place int64
	// Version is the place version the task runs: the one it named, or
	// for an unpinned task the latest (or, raced, the one before).
	Version int64
	Script  string
	// Timeout is the task's timeout (the create's, else 300 s).
	Timeout time.Duration
}

// execute runs an executor task: QUEUED for its start delay, PROCESSING
// while the executor runs, then the executor's outcome (DEADLINE_EXCEEDED
// when the timeout ended it, CANCELLED when the server closed).
func (s *Server) execute(t *task, job Job, startup time.Duration) {
	defer s.wg.Done()
	end := func(out Outcome, deadline bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		t.out, t.deadline, t.running, t.done = out, deadline, true, true
	}
	wait := time.NewTimer(startup)
	defer wait.Stop()
	select {
	case <-wait.C:
	case <-s.ctx.Done():
		end(Outcome{State: "CANCELLED"}, false)
		return
	}
	s.mu.Lock()
	t.running = true
	exec := s.Executor
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, job.Timeout)
	defer cancel()
	out := exec.Execute(ctx, job)
	switch {
	case s.ctx.Err() != nil:
		end(Outcome{State: "CANCELLED", Logs: out.Logs}, false)
	case ctx.Err() != nil:
		end(Outcome{State: "FAILED", Logs: out.Logs}, true)
	default:
		end(out, false)
	}
}
