package cli

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// The terminal itself is tested in package terminal; these tests check
// that the command line reaches it.

// TestTerminalTimeoutFlag: the global --timeout bounds the terminal's
// commands as it bounds one-shot ones.
func TestTerminalTimeoutFlag(t *testing.T) {
	port := freePort(t)
	n, _ := strconv.Atoi(port)
	kit.FakeStudio(t, n)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := Run(ctx, []string{"studio-bridge", "--port", port, "--timeout", "300ms", "terminal"},
		IO{In: strings.NewReader("task.wait(60)\n.exit\n"), Out: &out, Err: &errb})
	if err == nil || err.Error() != "the input had 1 failure (see above)" { // piped input whose entry failed
		t.Fatalf("%v: %s\n%s", err, errb.String(), out.String())
	}
	if !strings.Contains(errb.String(), "Script execution timed out after 300ms.") {
		t.Fatalf("no timeout after 300ms:\n%s", errb.String())
	}
}

// TestTerminalAttachesLikeExecInPlayMode: with a Studio window in Play mode
// the terminal attaches to the server DataModel, where exec runs scripts by
// default; --context picks another.
func TestTerminalAttachesLikeExecInPlayMode(t *testing.T) {
	port := freePort(t)
	n, _ := strconv.Atoi(port)
	for _, c := range []protocol.Context{protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient} {
		kit.StartPlugin(t, fakeplugin.Config{Port: n, InstanceID: "A", PlaceName: "Place", Context: c, State: protocol.StatePlay,
			Handler: fakeplugin.Studio})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Attached to Place [server]"},
		{[]string{"--context", "client"}, "Attached to Place [client]"},
		{[]string{"--context", "edit"}, "Attached to Place [edit]"},
	} {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		args := append([]string{"studio-bridge", "--port", port, "terminal", "--wait", "10s"}, tc.args...)
		err := Run(ctx, args, IO{In: strings.NewReader(".exit\n"), Out: &out, Err: &errb})
		cancel()
		if err != nil || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("terminal %v: %v, want %q in:\n%s%s", tc.args, err, tc.want, out.String(), errb.String())
		}
	}
}
