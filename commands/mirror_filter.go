package commands

import "math"

// The one mirror rule (issue 25 item 11), shared by every path that shows a
// client session's lines: a client line is a copy of a server line when both
// have the same level and body and their stamps are within MirrorSkew (or
// either is unstamped); each server line explains one client copy. The
// batch paths (logs, an exec's collected result) and the live ones (logs
// --follow, an exec's streamed lines: mirror_stream.go) all go through
// mirrorFilter.

// mirrorKey is what a copy has in common with its original.
type mirrorKey struct{ level, body string }

// mirrorEntry is one server line not yet matched to a client copy.
type mirrorEntry struct {
	key  mirrorKey
	ts   float64
	used bool
}

// mirrorFilter remembers server lines to recognise their client copies.
// With a budget (bytes of bodies) it forgets the oldest lines beyond it,
// and, once told the newest stamp (forget), lines stamped more than
// MirrorSkew before it: a follow that runs for days holds only the last
// few seconds. Budget 0 keeps every line (the batch paths, whose lines are
// in memory already).
type mirrorFilter struct {
	budget int
	bytes  int
	queue  []*mirrorEntry // oldest first, for forgetting
	byKey  map[mirrorKey][]*mirrorEntry
}

func newMirrorFilter(budget int) *mirrorFilter {
	return &mirrorFilter{budget: budget, byKey: map[mirrorKey][]*mirrorEntry{}}
}

// entryBytes is what a remembered line counts against the budget.
func entryBytes(k mirrorKey) int { return len(k.body) + len(k.level) + 64 }

// server remembers a server line.
func (f *mirrorFilter) server(l Line) {
	e := &mirrorEntry{key: mirrorKey{l.Level, l.Body}, ts: l.Timestamp}
	f.queue = append(f.queue, e)
	f.byKey[e.key] = append(f.byKey[e.key], e)
	f.bytes += entryBytes(e.key)
	for f.budget > 0 && f.bytes > f.budget && len(f.queue) > 0 {
		f.dropOldest()
	}
}

// matches reports whether stamps a and b are close enough for one line.
func matches(a, b float64) bool {
	return a == 0 || b == 0 || math.Abs(a-b) <= MirrorSkew
}

// take reports whether c is a copy of a remembered server line, and if so
// uses that line up (it explains no second copy).
func (f *mirrorFilter) take(c Line) bool {
	k := mirrorKey{c.Level, c.Body}
	list := f.byKey[k]
	for i, e := range list {
		if matches(e.ts, c.Timestamp) {
			e.used = true
			if len(list) == 1 {
				delete(f.byKey, k)
			} else {
				f.byKey[k] = append(list[:i:i], list[i+1:]...)
			}
			return true
		}
	}
	return false
}

// forget drops the server lines stamped more than MirrorSkew before now
// (milliseconds, the plugin's clock): no copy stamped now or later can
// match them.
func (f *mirrorFilter) forget(now float64) {
	for len(f.queue) > 0 && f.queue[0].ts != 0 && f.queue[0].ts < now-MirrorSkew {
		f.dropOldest()
	}
}

func (f *mirrorFilter) dropOldest() {
	e := f.queue[0]
	f.queue[0] = nil
	f.queue = f.queue[1:]
	f.bytes -= entryBytes(e.key)
	if e.used {
		return
	}
	// the oldest unused line of its key is first in its list
	list := f.byKey[e.key]
	if len(list) <= 1 {
		delete(f.byKey, e.key)
	} else {
		f.byKey[e.key] = list[1:]
	}
}

// dropMirrored returns the client's entries without those that match a
// server entry (the rule above); each server entry accounts for one client
// entry, so a line the client printed itself as often as the server did is
// still counted once per copy the server does not explain.
func dropMirrored(client, server []Line) []Line {
	if len(server) == 0 {
		return client
	}
	f := newMirrorFilter(0)
	for _, s := range server {
		f.server(s)
	}
	out := make([]Line, 0, len(client))
	for _, c := range client {
		if !f.take(c) {
			out = append(out, c)
		}
	}
	return out
}
