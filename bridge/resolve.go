package bridge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Target says which session a command wants. Zero values mean "pick for me".
type Target struct {
	// SessionID names a session: its id, its window's instanceId (the
	// context then picks the DataModel), or a unique prefix of either of at
	// least MinPrefix characters.
	SessionID string
	// Context picks a DataModel of the one connected Studio instance, or,
	// given explicitly with several instances connected, the one instance
	// that has that context.
	Context protocol.Context
	// DefaultContext is the command's choice in Play mode when Context is
	// unset: edit for read-only commands, server for mutating ones. It
	// never picks a window among several.
	DefaultContext protocol.Context
}

// MinPrefix is the shortest id prefix a target may give: shorter ones
// match too much to be what anyone meant.
const MinPrefix = 4

// ResolveErrorKind classifies why resolution failed.
type ResolveErrorKind int

// Ways resolution fails.
const (
	NoSessions ResolveErrorKind = iota + 1
	SessionNotFound
	ContextUnavailable
	MultipleInstances
	// AmbiguousSession: the id prefix matches several sessions or windows;
	// Sessions lists the candidates.
	AmbiguousSession
)

// ResolveError explains a failed resolution; Sessions lists what the user
// can choose from when that helps.
type ResolveError struct {
	Kind     ResolveErrorKind
	ID       string
	Context  protocol.Context
	Sessions []protocol.SessionInfo
	msg      string
}

func (e *ResolveError) Error() string { return e.msg }

// Resolve picks the session a command should talk to, following the table
// in README.md ("Which session?"). It is a pure function of its inputs.
func Resolve(sessions []protocol.SessionInfo, t Target) (protocol.SessionInfo, error) {
	if t.SessionID != "" {
		return resolveID(sessions, t)
	}
	instances := GroupByInstance(sessions)
	switch len(instances) {
	case 0:
		return protocol.SessionInfo{}, &ResolveError{Kind: NoSessions,
			msg: "No active sessions. Is Studio running with the studio-bridge plugin installed?"}
	case 1:
		return resolveIn(instances[0], t)
	}
	// Several windows: an explicit context picks the one window that has
	// it (`--context server` while one window plays); a default never does.
	if t.Context != "" {
		var with []Instance
		for _, in := range instances {
			if _, ok := in.Get(t.Context); ok {
				with = append(with, in)
			}
		}
		if len(with) == 1 {
			return resolveIn(with[0], t)
		}
	}
	return protocol.SessionInfo{}, &ResolveError{Kind: MultipleInstances, Sessions: sessions,
		msg: "Multiple Studio instances connected. Specify a sessionId."}
}

// resolveID resolves a named target: an exact session id, an exact
// instanceId, or a unique prefix of one of them.
func resolveID(sessions []protocol.SessionInfo, t Target) (protocol.SessionInfo, error) {
	id := t.SessionID
	for _, s := range sessions {
		if s.SessionID == id {
			return s, nil
		}
	}
	byInstance := GroupByInstance(sessions)
	for _, in := range byInstance {
		if in.ID == id {
			return resolveIn(in, t)
		}
	}
	notFound := func(msg string) error {
		return &ResolveError{Kind: SessionNotFound, ID: id, Sessions: sessions, msg: msg}
	}
	if len(id) < MinPrefix {
		return protocol.SessionInfo{}, notFound(fmt.Sprintf("Session not found: %s (an id prefix needs at least %d characters)", id, MinPrefix))
	}
	var matched []protocol.SessionInfo
	var windows []Instance
	for _, in := range byInstance {
		if strings.HasPrefix(in.ID, id) {
			windows = append(windows, in)
			continue
		}
		for _, s := range in.Sessions {
			if strings.HasPrefix(s.SessionID, id) {
				matched = append(matched, s)
			}
		}
	}
	switch {
	case len(matched) == 1 && len(windows) == 0:
		return matched[0], nil
	case len(matched) == 0 && len(windows) == 1:
		return resolveIn(windows[0], t)
	case len(matched)+len(windows) > 1:
		var candidates []protocol.SessionInfo
		for _, in := range windows {
			candidates = append(candidates, in.Sessions...)
		}
		candidates = SortSessions(append(candidates, matched...))
		return protocol.SessionInfo{}, &ResolveError{Kind: AmbiguousSession, ID: id, Sessions: candidates,
			msg: fmt.Sprintf("%q matches more than one session or Studio instance; give more of the id", id)}
	}
	return protocol.SessionInfo{}, notFound(fmt.Sprintf("Session not found: %s", id))
}

// resolveIn picks the session of one window by context: the rules for a
// single connected Studio.
func resolveIn(inst Instance, t Target) (protocol.SessionInfo, error) {
	if !inst.Playing() {
		if t.Context == "" || t.Context == protocol.ContextEdit {
			if s, ok := inst.Get(protocol.ContextEdit); ok {
				return s, nil
			}
			if len(inst.Sessions) == 1 && t.Context == "" {
				return inst.Sessions[0], nil
			}
			return protocol.SessionInfo{}, contextUnavailable(protocol.ContextEdit, "Studio has no edit session connected.")
		}
		return protocol.SessionInfo{}, contextUnavailable(t.Context, "Studio is in Edit mode.")
	}
	want := t.Context
	if want == "" {
		want = t.DefaultContext
		if want == "" {
			want = protocol.ContextEdit
		}
		// Run mode (F8) has no client DataModel: the server one renders, so
		// it stands in for a command that defaults to the client (screenshot)
		if want == protocol.ContextClient && inst.Mode() == protocol.StateRun {
			if s, ok := inst.Get(protocol.ContextServer); ok {
				if _, hasClient := inst.Get(protocol.ContextClient); !hasClient {
					return s, nil
				}
			}
		}
	}
	if s, ok := inst.Get(want); ok {
		return s, nil
	}
	return protocol.SessionInfo{}, contextUnavailable(want, fmt.Sprintf("Studio is in %s mode but its %s session is not connected.", inst.Mode(), want))
}

func contextUnavailable(ctx protocol.Context, why string) *ResolveError {
	return &ResolveError{Kind: ContextUnavailable, Context: ctx,
		msg: fmt.Sprintf("No %s context available. %s", ctx, why)}
}

// Instance is the sessions of one Studio window.
type Instance struct {
	ID       string
	Sessions []protocol.SessionInfo
}

// Get returns the instance's session in context c.
func (in Instance) Get(c protocol.Context) (protocol.SessionInfo, bool) {
	for _, s := range in.Sessions {
		if s.Context == c {
			return s, true
		}
	}
	return protocol.SessionInfo{}, false
}

// Playing reports whether the window is in a play mode: it has a server or
// client DataModel, or its edit session says so.
func (in Instance) Playing() bool {
	for _, s := range in.Sessions {
		if s.Context != protocol.ContextEdit {
			return true
		}
		switch s.State {
		case protocol.StatePlay, protocol.StateRun, protocol.StatePaused:
			return true
		}
	}
	return false
}

// Mode names the window's run mode for messages.
func (in Instance) Mode() protocol.State {
	if s, ok := in.Get(protocol.ContextEdit); ok && s.State != "" {
		return s.State
	}
	return protocol.StatePlay
}

// GroupByInstance groups sessions by instanceId, ordered by instance id and,
// within an instance, edit, server, client.
func GroupByInstance(sessions []protocol.SessionInfo) []Instance {
	byID := map[string]*Instance{}
	var order []string
	for _, s := range sessions {
		in, ok := byID[s.InstanceID]
		if !ok {
			in = &Instance{ID: s.InstanceID}
			byID[s.InstanceID] = in
			order = append(order, s.InstanceID)
		}
		in.Sessions = append(in.Sessions, s)
	}
	sort.Strings(order)
	out := make([]Instance, 0, len(order))
	for _, id := range order {
		in := byID[id]
		sort.SliceStable(in.Sessions, func(i, j int) bool {
			return contextRank(in.Sessions[i].Context) < contextRank(in.Sessions[j].Context)
		})
		out = append(out, *in)
	}
	return out
}

// SortSessions orders sessions for display, in place: by instance, then
// edit, server, client (the order GroupByInstance gives). It sorts indices
// and moves each session once: sessions are large structs.
func SortSessions(sessions []protocol.SessionInfo) []protocol.SessionInfo {
	if sessionsSorted(sessions) { // a host's list arrives sorted
		return sessions
	}
	idx := make([]int, len(sessions))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return sessionLess(&sessions[idx[i]], &sessions[idx[j]]) })
	out := make([]protocol.SessionInfo, len(sessions))
	for i, k := range idx {
		out[i] = sessions[k]
	}
	copy(sessions, out)
	return sessions
}

func sessionLess(a, b *protocol.SessionInfo) bool {
	if a.InstanceID != b.InstanceID {
		return a.InstanceID < b.InstanceID
	}
	return contextRank(a.Context) < contextRank(b.Context)
}

func sessionsSorted(sessions []protocol.SessionInfo) bool {
	for i := 1; i < len(sessions); i++ {
		if sessionLess(&sessions[i], &sessions[i-1]) {
			return false
		}
	}
	return true
}

func contextRank(c protocol.Context) int {
	for i, have := range protocol.Contexts {
		if have == c {
			return i
		}
	}
	return len(protocol.Contexts)
}
