package bridge

import (
	"errors"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
)

func sess(id, inst string, ctx protocol.Context, state protocol.State) protocol.SessionInfo {
	return protocol.SessionInfo{SessionID: id, InstanceID: inst, Context: ctx, State: state}
}

// TestResolve covers every row of the design brief's resolver table.
func TestResolve(t *testing.T) {
	t.Parallel()
	editA := sess("a-edit", "A", protocol.ContextEdit, protocol.StateEdit)
	playEdit := sess("b-edit", "B", protocol.ContextEdit, protocol.StatePlay)
	playServer := sess("b-server", "B", protocol.ContextServer, protocol.StateServer)
	playClient := sess("b-client", "B", protocol.ContextClient, protocol.StateClient)
	play := []protocol.SessionInfo{playClient, playServer, playEdit}
	run := []protocol.SessionInfo{sess("r-edit", "R", protocol.ContextEdit, protocol.StateRun), sess("r-server", "R", protocol.ContextServer, protocol.StateRun)}
	twoInstances := append([]protocol.SessionInfo{editA}, play...)

	tests := []struct {
		name     string
		sessions []protocol.SessionInfo
		target   Target
		want     string // session id, or "" when an error is expected
		kind     ResolveErrorKind
		msg      string
	}{
		{name: "0 instances, no id", target: Target{}, kind: NoSessions,
			msg: "No active sessions. Is Studio running with the studio-bridge plugin installed?"},
		{name: "0 instances, no id, context set", target: Target{Context: protocol.ContextServer}, kind: NoSessions,
			msg: "No active sessions. Is Studio running with the studio-bridge plugin installed?"},
		{name: "0 instances, id", target: Target{SessionID: "x"}, kind: SessionNotFound, msg: "Session not found: x (an id prefix needs at least 4 characters)"},
		{name: "edit, context unset", sessions: []protocol.SessionInfo{editA}, want: "a-edit"},
		{name: "edit, context edit", sessions: []protocol.SessionInfo{editA}, target: Target{Context: protocol.ContextEdit}, want: "a-edit"},
		{name: "edit, mutating default", sessions: []protocol.SessionInfo{editA}, target: Target{DefaultContext: protocol.ContextServer}, want: "a-edit"},
		{name: "edit, context server", sessions: []protocol.SessionInfo{editA}, target: Target{Context: protocol.ContextServer}, kind: ContextUnavailable,
			msg: "No server context available. Studio is in Edit mode."},
		{name: "edit, context client", sessions: []protocol.SessionInfo{editA}, target: Target{Context: protocol.ContextClient}, kind: ContextUnavailable,
			msg: "No client context available. Studio is in Edit mode."},
		{name: "play, unset, read-only default", sessions: play, target: Target{DefaultContext: protocol.ContextEdit}, want: "b-edit"},
		{name: "play, unset, no default", sessions: play, want: "b-edit"},
		{name: "play, unset, rendering default (screenshot)", sessions: play, target: Target{DefaultContext: protocol.ContextClient}, want: "b-client"},
		{name: "edit, rendering default (screenshot)", sessions: []protocol.SessionInfo{editA}, target: Target{DefaultContext: protocol.ContextClient}, want: "a-edit"},
		{name: "run, unset, rendering default: the server renders", sessions: run, target: Target{DefaultContext: protocol.ContextClient}, want: "r-server"},
		{name: "run, client named: not there", sessions: run, target: Target{Context: protocol.ContextClient}, kind: ContextUnavailable,
			msg: "No client context available. Studio is in Run mode but its client session is not connected."},
		{name: "play, unset, mutating default", sessions: play, target: Target{DefaultContext: protocol.ContextServer}, want: "b-server"},
		{name: "play, server", sessions: play, target: Target{Context: protocol.ContextServer}, want: "b-server"},
		{name: "play, client", sessions: play, target: Target{Context: protocol.ContextClient}, want: "b-client"},
		{name: "play, edit", sessions: play, target: Target{Context: protocol.ContextEdit, DefaultContext: protocol.ContextServer}, want: "b-edit"},
		{name: "play, server not yet connected", sessions: []protocol.SessionInfo{playEdit}, target: Target{Context: protocol.ContextServer}, kind: ContextUnavailable,
			msg: "No server context available. Studio is in Play mode but its server session is not connected."},
		{name: "one instance, id", sessions: play, target: Target{SessionID: "b-client", Context: protocol.ContextServer}, want: "b-client"},
		{name: "one instance, unknown id", sessions: play, target: Target{SessionID: "nope"}, kind: SessionNotFound, msg: "Session not found: nope"},
		{name: "N instances, no id", sessions: twoInstances, kind: MultipleInstances, msg: "Multiple Studio instances connected. Specify a sessionId."},
		{name: "N instances, no id, explicit context only one window has", sessions: twoInstances, target: Target{Context: protocol.ContextServer}, want: "b-server"},
		{name: "N instances, no id, explicit context every window has", sessions: twoInstances, target: Target{Context: protocol.ContextEdit}, kind: MultipleInstances,
			msg: "Multiple Studio instances connected. Specify a sessionId."},
		{name: "N instances, no id, a default context never picks a window", sessions: twoInstances, target: Target{DefaultContext: protocol.ContextServer}, kind: MultipleInstances,
			msg: "Multiple Studio instances connected. Specify a sessionId."},
		{name: "N instances, no id, explicit context no window has", sessions: []protocol.SessionInfo{editA, sess("c-edit", "C", protocol.ContextEdit, protocol.StateEdit)},
			target: Target{Context: protocol.ContextClient}, kind: MultipleInstances, msg: "Multiple Studio instances connected. Specify a sessionId."},
		{name: "N instances, explicit context two windows have", sessions: append(append([]protocol.SessionInfo{}, play...), sess("d-edit", "D", protocol.ContextEdit, protocol.StatePlay), sess("d-server", "D", protocol.ContextServer, protocol.StateServer)),
			target: Target{Context: protocol.ContextServer}, kind: MultipleInstances, msg: "Multiple Studio instances connected. Specify a sessionId."},
		{name: "N instances, id", sessions: twoInstances, target: Target{SessionID: "a-edit"}, want: "a-edit"},
		{name: "N instances, unknown id", sessions: twoInstances, target: Target{SessionID: "zzzz"}, kind: SessionNotFound, msg: "Session not found: zzzz"},
		{name: "N instances, unknown short id", sessions: twoInstances, target: Target{SessionID: "zzz"}, kind: SessionNotFound,
			msg: "Session not found: zzz (an id prefix needs at least 4 characters)"},
	}
	// Ids people type: a unique prefix (at least MinPrefix characters) of a
	// session id or an instanceId, or a whole instanceId.
	one := sess("1111aaaa-edit", "WIN-ONE", protocol.ContextEdit, protocol.StateEdit)
	twoEdit := sess("2222bbbb-edit", "WIN-TWO", protocol.ContextEdit, protocol.StatePlay)
	twoServer := sess("2222cccc-server", "WIN-TWO", protocol.ContextServer, protocol.StateServer)
	twoClient := sess("3333dddd-client", "WIN-TWO", protocol.ContextClient, protocol.StateClient)
	typed := []protocol.SessionInfo{one, twoEdit, twoServer, twoClient}
	tests = append(tests, []struct {
		name     string
		sessions []protocol.SessionInfo
		target   Target
		want     string
		kind     ResolveErrorKind
		msg      string
	}{
		{name: "prefix of one session id", sessions: typed, target: Target{SessionID: "1111"}, want: "1111aaaa-edit"},
		{name: "longer prefix tells two apart", sessions: typed, target: Target{SessionID: "2222c"}, want: "2222cccc-server"},
		{name: "prefix of two session ids", sessions: typed, target: Target{SessionID: "2222"}, kind: AmbiguousSession,
			msg: `"2222" matches more than one session or Studio instance; give more of the id`},
		{name: "instanceId, the default context picks", sessions: typed, target: Target{SessionID: "WIN-TWO", DefaultContext: protocol.ContextServer}, want: "2222cccc-server"},
		{name: "instanceId, explicit context", sessions: typed, target: Target{SessionID: "WIN-TWO", Context: protocol.ContextClient}, want: "3333dddd-client"},
		{name: "instanceId in Edit, context server", sessions: typed, target: Target{SessionID: "WIN-ONE", Context: protocol.ContextServer}, kind: ContextUnavailable,
			msg: "No server context available. Studio is in Edit mode."},
		{name: "prefix of one instanceId", sessions: typed, target: Target{SessionID: "WIN-T"}, want: "2222bbbb-edit"},
		{name: "prefix of two instanceIds", sessions: typed, target: Target{SessionID: "WIN-"}, kind: AmbiguousSession,
			msg: `"WIN-" matches more than one session or Studio instance; give more of the id`},
		{name: "prefix too short", sessions: typed, target: Target{SessionID: "111"}, kind: SessionNotFound,
			msg: "Session not found: 111 (an id prefix needs at least 4 characters)"},
		{name: "prefix of nothing", sessions: typed, target: Target{SessionID: "9999"}, kind: SessionNotFound, msg: "Session not found: 9999"},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.sessions, tt.target)
			if tt.want != "" {
				if err != nil || got.SessionID != tt.want {
					t.Fatalf("got %q, %v; want %q", got.SessionID, err, tt.want)
				}
				return
			}
			var re *ResolveError
			if !errors.As(err, &re) {
				t.Fatalf("want a *ResolveError, got %v (session %q)", err, got.SessionID)
			}
			if re.Kind != tt.kind || re.Error() != tt.msg {
				t.Fatalf("got kind %d %q; want kind %d %q", re.Kind, re.Error(), tt.kind, tt.msg)
			}
			if re.Kind == MultipleInstances && len(re.Sessions) != len(tt.sessions) {
				t.Fatalf("multiple-instances error lists %d sessions, want %d", len(re.Sessions), len(tt.sessions))
			}
			if re.Kind == AmbiguousSession && len(re.Sessions) < 2 {
				t.Fatalf("an ambiguous id lists %d candidates, want them all", len(re.Sessions))
			}
		})
	}
}

func TestGroupByInstanceOrdersContexts(t *testing.T) {
	t.Parallel()
	in := GroupByInstance([]protocol.SessionInfo{
		sess("3", "B", protocol.ContextClient, ""), sess("1", "B", protocol.ContextEdit, ""),
		sess("2", "B", protocol.ContextServer, ""), sess("0", "A", protocol.ContextEdit, ""),
	})
	if len(in) != 2 || in[0].ID != "A" || in[1].ID != "B" {
		t.Fatalf("instances: %+v", in)
	}
	var order string
	for _, s := range in[1].Sessions {
		order += s.SessionID
	}
	if order != "123" {
		t.Fatalf("context order %q, want edit, server, client", order)
	}
}

func TestOlderVersion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"0.1.0", "0.2.0", true}, {"1.2.3", "1.2.3", false}, {"1.10.0", "1.9.0", false},
		{"v1.0.0", "1.0.1", true}, {"0.1.0-dev", "0.1.0", false}, {"dev", "1.0.0", false},
	} {
		if got := olderVersion(tt.a, tt.b); got != tt.want {
			t.Errorf("olderVersion(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}
