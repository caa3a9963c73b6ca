package commands

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// Live lines of a client session (logs --follow, an exec's streamed
// output) go through the same mirror rule as the batch paths
// (mirror_filter.go). The server's original and the client's copy reach
// the host over two connections, in either order, so a client line cannot
// be judged when it arrives: it is held until the server session has
// logged a line stamped at or after it (the original, being earlier, has
// then arrived) or MirrorSkew has passed. While the server is quiet a
// client line therefore shows up to 2 s late; while it logs, at once.

// mirrorHoldBudget bounds the held client lines and the remembered server
// lines, each, in bytes; past it the oldest held line is shown unjudged.
const mirrorHoldBudget = 1 << 20

// heldLine is a client line waiting for the server to catch up.
type heldLine struct {
	line     Line
	deadline time.Time
}

// mirrorJudge applies the mirror rule to two live series. Not safe for
// concurrent use; mirrorStream guards it.
type mirrorJudge struct {
	f          *mirrorFilter
	held       []heldLine
	heldBytes  int
	serverLast float64 // the newest server stamp seen
	serverSeq  int64   // the newest server sequence number seen
	emit       func(Line)
}

func newMirrorJudge(emit func(Line)) *mirrorJudge {
	return &mirrorJudge{f: newMirrorFilter(mirrorHoldBudget), emit: emit}
}

// server takes a server line: it drops the first held client copy of it,
// or is remembered for a copy still to come; held lines it shows the
// server has passed are released.
func (j *mirrorJudge) server(l Line, now time.Time) {
	j.serverLast = max(j.serverLast, l.Timestamp)
	j.serverSeq = max(j.serverSeq, l.Seq)
	dropped := false
	for i, h := range j.held {
		if h.line.Level == l.Level && h.line.Body == l.Body && matches(h.line.Timestamp, l.Timestamp) {
			j.heldBytes -= len(h.line.Body)
			j.held = append(j.held[:i:i], j.held[i+1:]...)
			dropped = true
			break
		}
	}
	if !dropped {
		j.f.server(l)
	}
	j.f.forget(j.serverLast)
	j.release(now)
}

// client takes a client line: a copy of a remembered server line is
// dropped, any other is held until release shows it.
func (j *mirrorJudge) client(l Line, now time.Time) {
	if j.f.take(l) {
		return
	}
	j.held = append(j.held, heldLine{l, now.Add(time.Duration(MirrorSkew) * time.Millisecond)})
	j.heldBytes += len(l.Body)
	j.release(now)
}

// release shows, in order, the held lines the server has logged past, whose
// wait is over, or that exceed the budget.
func (j *mirrorJudge) release(now time.Time) {
	for len(j.held) > 0 {
		h := j.held[0]
		passed := h.line.Timestamp != 0 && j.serverLast >= h.line.Timestamp
		if !passed && now.Before(h.deadline) && j.heldBytes <= mirrorHoldBudget {
			return
		}
		j.held[0] = heldLine{}
		j.held = j.held[1:]
		j.heldBytes -= len(h.line.Body)
		j.emit(h.line)
	}
}

// flush shows every held line (the stream ends).
func (j *mirrorJudge) flush() {
	for _, h := range j.held {
		j.emit(h.line)
	}
	j.held, j.heldBytes = nil, 0
}

// next is when the oldest held line's wait ends (zero: nothing held).
func (j *mirrorJudge) next() time.Time {
	if len(j.held) == 0 {
		return time.Time{}
	}
	return j.held[0].deadline
}

// mirrorStream puts a client session's live lines through the mirror rule:
// it follows the log events of the window's server session (subscribing
// there) and returns the function client lines go through instead of emit,
// and a stop that ends the subscription and shows the lines still held.
// Stop does not wait out the hold: it reads the server's newest lines once
// (those its events have not brought yet) and judges the held lines by
// them, so an exec's last mirrored line is dropped too without delaying its
// result.
// For any other session, or a window without a server session (Run mode, a
// test whose server runs no plugin), or when the server cannot be
// subscribed to, lines pass straight to emit.
func mirrorStream(ctx context.Context, env *Env, emit func(Line)) (func(Line), func()) {
	if env.Session.Context != protocol.ContextClient {
		return emit, func() {}
	}
	in, err := window(ctx, env.Bridge, env.Session.InstanceID)
	server, ok := in.Get(protocol.ContextServer)
	if err != nil || !ok {
		return emit, func() {}
	}
	senv := *env
	senv.Session = server
	ctx, cancel := context.WithCancel(ctx)
	events := env.Bridge.Events(ctx, server.SessionID)
	sessions := env.Bridge.WatchSessions(ctx) // to subscribe again after the server's plugin reconnects
	sub := actions.SubscribeRequest{Events: []string{actions.EventLog}, IncludeInternal: true}
	if err := action(ctx, &senv, actions.Subscribe, sub, nil, nil); err != nil {
		cancel()
		env.Log.Debug("mirrored lines are not filtered live: the server session cannot be followed", "err", err)
		return emit, func() {}
	}

	var mu sync.Mutex
	j := newMirrorJudge(emit)
	stopped := false
	wake := make(chan struct{}, 1) // a client line was held: the wait may end sooner
	done := make(chan struct{})
	go func() {
		defer close(done)
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		for {
			mu.Lock()
			next := j.next()
			mu.Unlock()
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			if !next.IsZero() {
				timer.Reset(max(time.Until(next), 0))
			} else {
				timer.Reset(time.Hour)
			}
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case ev, ok := <-sessions:
				if !ok {
					sessions = nil
					continue
				}
				if ev.Kind == protocol.SessionDisconnected || ev.Session.SessionID != server.SessionID || ev.Session.ConnectedAt.Equal(server.ConnectedAt) {
					continue
				}
				server.ConnectedAt = ev.Session.ConnectedAt
				if err := action(ctx, &senv, actions.Subscribe, sub, nil, nil); err != nil && ctx.Err() == nil {
					env.Log.Debug("could not follow the server session again after its plugin reconnected", "err", err)
				}
			case <-timer.C:
				mu.Lock()
				j.release(time.Now())
				mu.Unlock()
			case ev, ok := <-events:
				if !ok {
					events = nil // held lines still show when their wait ends
					continue
				}
				var l Line
				if ev.Event != "log" || json.Unmarshal(ev.Payload, &l) != nil {
					continue
				}
				if ev.Seq != 0 {
					l.Seq = ev.Seq
				}
				mu.Lock()
				j.server(l, time.Now())
				mu.Unlock()
			}
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			<-done
			uctx, ucancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer ucancel()
			mu.Lock()
			defer mu.Unlock()
			if n := len(j.held); n > 0 {
				req := actions.LogsRequest{Count: min(2*n+100, 100000), Direction: "tail", IncludeInternal: true}
				if data, err := readLogs(uctx, &senv, req); err == nil {
					for _, l := range data.Entries {
						if l.Seq == 0 || l.Seq > j.serverSeq {
							j.server(l, time.Now())
						}
					}
				}
			}
			j.flush()
			stopped = true // a late client line passes straight through
			_ = action(uctx, &senv, actions.Unsubscribe, sub, nil, nil)
		})
	}
	through := func(l Line) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			emit(l)
			return
		}
		j.client(l, time.Now())
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	return through, stop
}
