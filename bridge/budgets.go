package bridge

import (
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// budgets are the deadlines of what the host reads (protocol/budgets.go,
// PROTOCOL.md 4): the protocol's values, which tests shorten.
type budgets struct {
	firstFrameBody time.Duration // a first frame's body, once its header is read
	bodyBase       time.Duration // a later frame's body, plus its reservation at bodyRate
	bodyRate       int64         // bytes per second
	budgetWait     time.Duration // a large frame's wait for its frame budget
	attachTimeout  time.Duration // a /plugin socket's wait for its first attach
	maxUnattached  int           // /plugin sockets past their hello without a session
	pluginFrames   int64         // the plugin frame budget's bytes
}

// withDefaults fills what b leaves zero with the protocol's values.
func (b budgets) withDefaults() budgets {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&b.firstFrameBody, protocol.FirstFrameBodyTimeout)
	set(&b.bodyBase, protocol.FrameBodyBase)
	set(&b.budgetWait, protocol.FrameBudgetWait)
	set(&b.attachTimeout, protocol.AttachTimeout)
	if b.bodyRate <= 0 {
		b.bodyRate = protocol.FrameBodyMinRate
	}
	if b.pluginFrames <= 0 {
		b.pluginFrames = protocol.PluginFrameBudgetBytes
	}
	if b.maxUnattached <= 0 {
		b.maxUnattached = protocol.MaxUnattachedSockets
	}
	return b
}

// bodyDeadline is how long a frame's body may take once its header has
// arrived: the base, plus reserved bytes (a large frame's frame limit) at
// the minimum rate.
func (b budgets) bodyDeadline(reserved int64) time.Duration {
	return b.bodyBase + time.Duration(reserved)*time.Second/time.Duration(b.bodyRate)
}

// Close codes and reasons of the budgets.
const (
	closeBodyTooSlow = websocket.StatusPolicyViolation // 1008
	closeBusy        = websocket.StatusTryAgainLater   // 1013
)

// admitUnattachedLocked counts a new /plugin socket as one without a
// session. At maxUnattached, the one that has waited longest is closed with
// 1013 to make room: a real plugin attaches right after its welcome, so
// sockets that linger without a session cannot keep it out (rejecting the
// newcomer instead let a stream of idle sockets hold every place). The
// socket reads small frames only until its first attach (no frame budget),
// and is closed if none comes within attachTimeout.
func (h *Host) admitUnattachedLocked(sock *pluginSocket) {
	if len(h.idle) >= h.budgets.maxUnattached {
		var oldest *pluginSocket
		for s := range h.idle {
			if oldest == nil || s.admitted.Before(oldest.admitted) {
				oldest = s
			}
		}
		delete(h.idle, oldest)
		oldest.log.Info("closing the plugin socket that waited longest without a session, to make room", "most", h.budgets.maxUnattached)
		oldest.shut(closeBusy, "host busy: too many plugin connections without a session; this one waited longest")
	}
	sock.admitted = time.Now()
	h.idle[sock] = struct{}{}
	sock.conn.SetReadLimit(protocol.PreHandshakeMaxFrameBytes)
	sock.attachTimer = time.AfterFunc(h.budgets.attachTimeout, func() {
		h.mu.Lock()
		_, waiting := h.idle[sock]
		h.mu.Unlock()
		if waiting {
			sock.log.Info("closing a plugin socket that attached no session in time", "within", h.budgets.attachTimeout)
			sock.shut(closeBodyTooSlow, "no attach within "+h.budgets.attachTimeout.String())
		}
	})
}

// attachedLocked marks sock as carrying a session: it is no longer counted
// as unattached, and reads frames up to the plugin frame limit.
func (h *Host) attachedLocked(sock *pluginSocket) {
	if _, ok := h.idle[sock]; !ok {
		return
	}
	delete(h.idle, sock)
	sock.attachTimer.Stop()
	sock.conn.SetReadLimit(sock.readLimit)
}

// forgetUnattachedLocked uncounts a socket that ends before any attach.
func (h *Host) forgetUnattachedLocked(sock *pluginSocket) {
	delete(h.idle, sock)
	if sock.attachTimer != nil {
		sock.attachTimer.Stop()
	}
}
