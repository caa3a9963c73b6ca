package bridge

import (
	"maps"
	"slices"
	"time"
)

// After a failover the new host starts with no sessions; the lost host's
// plugins re-register within a second, while the resolution grace (3 s)
// allows for plugins still on their 2 s search poll. The host therefore
// keeps the lost host's session ids (from its own mirror, HostConfig.Awaiting,
// and from the hellos of clients rejoining it) and tells every joining
// client which are still missing, so that a fresh one-shot process waits
// only for those rather than for the whole grace (PROTOCOL.md 6.14).

// expectLocked adds the sessions a rejoining client's lost host had. Only a
// host still in its grace takes them: after it, nobody waits anyway. Local
// waiters (Bridge.Sessions, Host.plugin) are woken to look again.
func (h *Host) expectLocked(ids []string) {
	if len(ids) == 0 || time.Since(h.started) >= h.cfg.Grace {
		return
	}
	added := false
	for _, id := range ids {
		if _, ok := h.expected[id]; !ok {
			h.expected[id] = struct{}{}
			added = true
		}
	}
	if added {
		h.hub.touch()
	}
}

// expectedSessions lists the lost host's sessions this host expects back
// (present or not); nil when it knows of none.
func (h *Host) expectedSessions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.expected) == 0 {
		return nil
	}
	return slices.Collect(maps.Keys(h.expected))
}

// awaitingLocked is what a client-welcome says about the lost host's
// sessions: those still missing, or settled when every one is back. With
// nothing expected it says neither.
func (h *Host) awaitingLocked() (missing []string, settled bool) {
	if len(h.expected) == 0 {
		return nil, false
	}
	missing = h.hub.missing(slices.Collect(maps.Keys(h.expected)))
	return missing, len(missing) == 0
}
