package commands

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// --play and --run choose the same way for every playable command: the
// window's edit session is resolved (a test starts there) and the context
// asked for is kept in the arguments.
func TestRetargetTest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     playable
		in       protocol.Context
		resolve  protocol.Context // the target the adapter then resolves
		runsIn   protocol.Context // kept in the arguments
		wantsErr string
	}{
		{"exec without --play: unchanged", &ExecArgs{}, protocol.ContextClient, protocol.ContextClient, "", ""},
		{"test without --play: unchanged", &TestArgs{}, "", "", "", ""},
		{"exec --play: the server by default", &ExecArgs{Playtest: Playtest{Play: true}}, "", protocol.ContextEdit, protocol.ContextServer, ""},
		{"test --play: the server by default", &TestArgs{Playtest: Playtest{Play: true}}, "", protocol.ContextEdit, protocol.ContextServer, ""},
		{"test --play --context client", &TestArgs{Playtest: Playtest{Play: true}}, protocol.ContextClient, protocol.ContextEdit, protocol.ContextClient, ""},
		{"test --run --context server", &TestArgs{Playtest: Playtest{Run: true}}, protocol.ContextServer, protocol.ContextEdit, protocol.ContextServer, ""},
		{"test --run --context client", &TestArgs{Playtest: Playtest{Run: true}}, protocol.ContextClient, "", "", "test: a Run test (--run) has no client DataModel"},
		{"exec --play --context edit", &ExecArgs{Playtest: Playtest{Play: true}}, protocol.ContextEdit, "", "", "exec: with --play or --run it runs in the test"},
		{"test --play --run", &TestArgs{Playtest: Playtest{Play: true, Run: true}}, "", "", "", "test: --play and --run are exclusive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := retargetTest(tc.args, bridge.Target{Context: tc.in})
			if tc.wantsErr != "" {
				var ue UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantsErr) {
					t.Fatalf("%v, want a usage error saying %q", err, tc.wantsErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Context != tc.resolve || *tc.args.playChoice().context != tc.runsIn {
				t.Fatalf("resolves %q, runs in %q; want %q, %q", got.Context, *tc.args.playChoice().context, tc.resolve, tc.runsIn)
			}
		})
	}
}

// Surfaces that skip Retarget (the terminal) still cannot ask for both.
func TestInTestRefusesPlayAndRun(t *testing.T) {
	args := &TestArgs{Playtest: Playtest{Play: true, Run: true}}
	_, err := inTest(context.Background(), &Env{}, args.playChoice(), func(*Env) (*Result, error) {
		t.Fatal("the work ran")
		return nil, nil
	})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "exclusive") {
		t.Fatalf("%v", err)
	}
}
