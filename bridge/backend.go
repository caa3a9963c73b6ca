package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// backend is what both roles provide to a Bridge: the host serves calls
// itself, a link relays them to the host. Each feeds the Bridge's hub.
type backend interface {
	call(ctx context.Context, sessionID, action string, payload json.RawMessage, timeout time.Duration, onProgress func(json.RawMessage)) (json.RawMessage, error)
	role() Role
	// hostStartedAt is when the serving host started; resolution waits for
	// plugins a little while after it.
	hostStartedAt() time.Time
	// returningSessions lists the sessions of a lost host the serving host expects
	// back (the list is complete once all are in it), or settled says the
	// list is complete already. With neither, resolution waits out the
	// grace from hostStartedAt.
	returningSessions() (ids []string, settled bool)
	// lostCh is closed when this backend can serve no more.
	lostCh() <-chan struct{}
	watch(sessionID string)
	unwatch(sessionID string)
	// leave exits the network gracefully: a host hands over, a link closes.
	leave(ctx context.Context)
}

func (h *Host) role() Role                          { return RoleHost }
func (h *Host) hostStartedAt() time.Time            { return h.started }
func (h *Host) lostCh() <-chan struct{}             { return h.served }
func (h *Host) returningSessions() ([]string, bool) { return h.expectedSessions(), false }
func (h *Host) watch(string)                        {}
func (h *Host) unwatch(string)                      {}
func (h *Host) leave(ctx context.Context)           { _ = h.Shutdown(ctx, "studio-bridge host process exiting") }
func (l *link) role() Role                          { return RoleClient }
func (l *link) hostStartedAt() time.Time            { return l.hostStarted }
func (l *link) lostCh() <-chan struct{}             { return l.lost }
func (l *link) returningSessions() ([]string, bool) { return l.awaiting, l.settled }
func (l *link) watch(sid string)                    { _ = l.send(protocol.Watch{SessionID: sid}) }
func (l *link) unwatch(sid string)                  { _ = l.send(protocol.Unwatch{SessionID: sid}) }
func (l *link) leave(ctx context.Context) {
	l.closeAfter(1000, "client leaving")
	select {
	case <-l.lost:
	case <-ctx.Done():
	}
}

// await waits for a pending call's result, its deadline or its caller. On
// either of the last two it withdraws the call (withdraw reports whether it
// was still pending) and asks the other side to cancel it, best effort.
func await(ctx context.Context, p *pendingCall, deadline time.Duration, withdraw func() bool, cancel func(), timedOut *protocol.Error) (json.RawMessage, error) {
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case r := <-p.done:
		return r.payload, r.err
	case <-timer.C:
		if withdraw() {
			cancel()
		}
		return nil, timedOut
	case <-ctx.Done():
		if withdraw() {
			cancel()
		}
		return nil, &protocol.Error{Code: protocol.CodeCancelled, Message: cancelledMessage(p.action, ctx.Err())}
	}
}

// cancelledMessage says in words why a call ended before its answer: ctx
// ended (err is ctx.Err()), whose cancel await passed on to Studio.
func cancelledMessage(action string, err error) string {
	why := "interrupted (Ctrl-C, or the caller gave up)"
	if errors.Is(err, context.DeadlineExceeded) {
		why = "the command ran out of time"
	}
	return fmt.Sprintf("%s cancelled before Studio answered: %s; Studio was asked to stop it", action, why)
}
