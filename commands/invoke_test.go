package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// TestClassify: every surface's rendering rests on this one table.
func TestClassify(t *testing.T) {
	t.Parallel()
	two := []protocol.SessionInfo{{SessionID: "a"}, {SessionID: "b"}}
	notFound := &protocol.Error{Code: protocol.CodeInstanceNotFound, Message: "No instance found at path: game.Workspace.X",
		Details: []byte(`{"resolvedPath":"game.Workspace","missingSegment":"X"}`)}
	for _, tc := range []struct {
		err      error
		kind     Kind
		code     protocol.Code
		sessions int
		detail   string
	}{
		{nil, Done, "", 0, ""},
		{UsageError{errors.New("bad")}, Usage, "", 0, ""},
		{fmt.Errorf("wrapped: %w", Usagef("%s is bad", ArgName("root"))), Usage, "", 0, ""},
		{&bridge.ResolveError{Kind: bridge.NoSessions}, NoSession, "", 0, ""},
		{&bridge.ResolveError{Kind: bridge.SessionNotFound, Sessions: two}, NoSession, "", 2, ""},
		{&bridge.ResolveError{Kind: bridge.ContextUnavailable}, NoSession, "", 0, ""},
		{&bridge.ResolveError{Kind: bridge.MultipleInstances, Sessions: two}, Ambiguous, "", 2, ""},
		{&bridge.ResolveError{Kind: bridge.AmbiguousSession, Sessions: two}, Ambiguous, "", 2, ""},
		{&bridge.PortInUseError{}, Unavailable, "", 0, ""},
		{&authtoken.NoConfigDirError{Err: errors.New("no home")}, Unavailable, "", 0, ""},
		{context.Canceled, Cancelled, "", 0, ""},
		{protocol.Errorf(protocol.CodeCancelled, "cancelled"), Cancelled, protocol.CodeCancelled, 0, ""},
		{protocol.Errorf(protocol.CodeTimeout, "State query timed out after 5 seconds."), TimedOut, protocol.CodeTimeout, 0, ""},
		{protocol.Errorf(protocol.CodeSessionNotFound, "gone"), NoSession, protocol.CodeSessionNotFound, 0, ""},
		{protocol.Errorf(protocol.CodeSessionDisconnected, "gone"), NoSession, protocol.CodeSessionDisconnected, 0, ""},
		{protocol.Errorf(protocol.CodeUnknownOutcome, "lost"), NoSession, protocol.CodeUnknownOutcome, 0, ""},
		{protocol.Errorf(protocol.CodeHostUnavailable, "no host"), Unavailable, protocol.CodeHostUnavailable, 0, ""},
		{protocol.Errorf(protocol.CodeUnauthorized, "wrong token"), Unavailable, protocol.CodeUnauthorized, 0, ""},
		{&Worded{Code: protocol.CodeBusy, Format: "busy; %s", Args: []any{StepTo{Path: "play", Words: []string{"stop"}}}}, Failed, protocol.CodeBusy, 0, ""},
		{fmt.Errorf("query: %w", notFound), Failed, protocol.CodeInstanceNotFound, 0, `game.Workspace exists, but has no child named "X"`},
		{errors.New("something else"), Failed, "", 0, ""},
	} {
		o := Classify(tc.err)
		if o.Kind != tc.kind || o.Code != tc.code || len(o.Sessions) != tc.sessions || !strings.HasPrefix(o.Detail, tc.detail) || o.Err != tc.err {
			t.Errorf("%v: got %v %q %d sessions, detail %q; want %v %q %d, %q", tc.err, o.Kind, o.Code, len(o.Sessions), o.Detail, tc.kind, tc.code, tc.sessions, tc.detail)
		}
	}
}

// TestPeopleSpelling: Worded texts read for people as the CLI always wrote
// them.
func TestPeopleSpelling(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Wordf("give %s or %s", ArgName("root"), ArgName("listServices")), "give --root or --services"},
		{Wordf("%s first", StepTo{Path: "play", Words: []string{"stop"}}), "run `studio-bridge play stop` first"},
		{Wordf("exec needs script%s", UsageOf("exec")), "exec needs script; usage: exec <script>"},
		{Wordf("none in %s", CurrentFolder("/x")), "none in the current folder"},
		{fmt.Errorf("test: %w", Wordf("%s", ArgName("testezPath"))), "test: --testez-path"},
	} {
		if got := SpellError(tc.err, People); got != tc.want || tc.err.Error() != tc.want {
			t.Errorf("got %q (Error %q), want %q", got, tc.err.Error(), tc.want)
		}
	}
	if protocol.CodeOf(&Worded{Code: protocol.CodeBusy, Format: "x"}) != protocol.CodeBusy {
		t.Error("a coded Worded has lost its protocol code")
	}
}

// TestInvokeValidatesBeforeConnecting: a bad invocation is refused before
// the bridge network is joined (no host is started for it), and a
// standalone invocation that names a session is refused by name.
func TestInvokeValidatesBeforeConnecting(t *testing.T) {
	t.Parallel()
	connect := func() (bridge.Conn, error) {
		t.Error("Invoke connected for an invocation it must refuse")
		return nil, errors.New("no")
	}
	for _, tc := range []struct {
		name string
		req  Request
		says string
	}{
		{"bad enum", Request{Command: Logs, Args: &LogsArgs{Count: 5, Direction: "sideways"}}, "direction must be one of"},
		{"required, empty", Request{Command: Exec, Args: &ExecArgs{}}, "exec needs script; usage: exec <script>"},
		{"query without a path", Request{Command: Query, Args: &QueryArgs{}}, "query needs a path (e.g. Workspace.SpawnLocation), or --services"},
		{"retarget refuses", Request{Command: Exec, Args: &ExecArgs{Script: "print(1)", Playtest: Playtest{Play: true}}, Target: bridge.Target{Context: protocol.ContextEdit}},
			"exec: with --play or --run it runs in the test"},
		{"standalone with a session", Request{Command: Exec, Args: &ExecArgs{Script: "print(1)", Cloud: true}, Target: bridge.Target{SessionID: "abcd"}},
			"--session does not apply: with these arguments exec runs without Studio"},
	} {
		tc.req.Connect = connect
		o := Invoke(context.Background(), tc.req)
		if o.Kind != Usage || !strings.Contains(o.Err.Error(), tc.says) {
			t.Errorf("%s: %v %v, want a usage error saying %q", tc.name, o.Kind, o.Err, tc.says)
		}
	}
	// A local command never joins the network.
	o := Invoke(context.Background(), Request{Command: VersionCommand, Connect: connect})
	if o.Kind != Done || o.Result == nil {
		t.Fatalf("version: %v %v", o.Kind, o.Err)
	}
}
