package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Plugin protocol v2 against the real binary (PROTOCOL.md section 12).

// startWindow runs a fake v2 Studio window with edit and server sessions over
// one socket and returns it with its session ids.
func startWindow(t *testing.T, port int, edit fakeplugin.Handler) (*fakeplugin.Plugin, map[protocol.Context]string) {
	t.Helper()
	return kit.Window(t, fakeplugin.Config{
		Port: port, InstanceID: "W2", PluginVersion: "0.1.0-dev", RetryDelays: fakeRetry,
		Sessions: []fakeplugin.SessionConfig{
			{Context: protocol.ContextEdit, PlaceName: "Place W2", Capabilities: []string{"exec"}, Handler: edit},
			{Context: protocol.ContextServer, State: protocol.StateServer, PlaceName: "Place W2", Capabilities: []string{"exec"}},
		},
	})
}

// execResult answers an exec as the real plugin's contract does.
func execResult(values ...any) fakeplugin.Reply {
	return fakeplugin.Reply{Payload: map[string]any{"success": true, "logs": []any{}, "returnValues": values}}
}

// A 4 MB script (commands.MaxScriptBytes) reaches a v2 plugin whole through
// the CLI, a client process and the host: sent to the plugin as chunks.
func TestV2FourMegabyteScriptThroughTheCLI(t *testing.T) {
	_, port := serveHost(t)
	_, ids := startWindow(t, port, func(action string, payload json.RawMessage) fakeplugin.Reply {
		var req struct {
			Script string `json:"script"`
		}
		if err := json.Unmarshal(payload, &req); err != nil {
			return fakeplugin.Reply{Err: protocol.Errorf(protocol.CodeInvalidPayload, "%v", err)}
		}
		sum := sha256.Sum256([]byte(req.Script))
		return execResult(len(req.Script), hex.EncodeToString(sum[:]))
	})
	line := "print(\"héllo\\\\\") -- 🎮\n"
	script := strings.Repeat(line, (4<<20)/len(line))
	file := filepath.Join(t.TempDir(), "big.luau")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, 60*time.Second, nil, "exec", "--port", strconv.Itoa(port), "--session", ids[protocol.ContextEdit], "--json", file)
	sum := sha256.Sum256([]byte(script))
	if r.Code != 0 || !strings.Contains(r.Stdout, hex.EncodeToString(sum[:])) || !strings.Contains(r.Stdout, strconv.Itoa(len(script))) {
		t.Fatalf("exec of a %d-byte script: exit %d\nstdout: %.500s\nstderr: %s", len(script), r.Code, r.Stdout, r.Stderr)
	}
}

// The plugin's socket drops while an exec runs (Studio ends its stream): the
// caller still gets the result, once, after the plugin reconnects.
func TestV2PluginDropMidExecCompletes(t *testing.T) {
	_, port := serveHost(t)
	release := make(chan struct{})
	var runs atomic.Int32
	w, ids := startWindow(t, port, func(string, json.RawMessage) fakeplugin.Reply {
		runs.Add(1)
		<-release
		return execResult("finished")
	})
	call := start(t, "exec", nil, "exec", "--port", strconv.Itoa(port), "--session", ids[protocol.ContextEdit], "--json", "work()")
	kit.WaitFor(t, 10*time.Second, "the exec to start in the plugin", func() bool { return runs.Load() == 1 })
	w.Drop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := w.WaitAttached(ctx, 2); err != nil {
		t.Fatal(err)
	}
	close(release)
	code := call.Wait(t, 10*time.Second)
	if code != 0 || !strings.Contains(call.Stdout.String(), "finished") {
		t.Fatalf("exec across a plugin drop: exit %d\nstdout: %s\nstderr: %s", code, call.Stdout.String(), call.Stderr.String())
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("exec ran %d times", n)
	}
	if !w.Resumed(protocol.ContextEdit) {
		t.Fatal("the session was not resumed")
	}
}

// kill -9 of the host still fails an in-flight call at once: the resume
// grace is for plugin drops, not for a dead host.
func TestV2InFlightExecDuringKill9(t *testing.T) {
	host, port := serveHost(t)
	serve(t, "standby", port, false)
	var runs atomic.Int32
	startWindow(t, port, func(string, json.RawMessage) fakeplugin.Reply {
		runs.Add(1)
		return fakeplugin.Reply{Stall: true}
	})
	sessions := infos(sessionsJSON(t, "--port", strconv.Itoa(port)))
	var edit string
	for _, s := range sessions {
		if s.Context == protocol.ContextEdit {
			edit = s.SessionID
		}
	}
	call := start(t, "exec", nil, "exec", "--port", strconv.Itoa(port), "--log-level", "info", "--session", edit, "--timeout", "60s", "while true do end")
	kit.WaitFor(t, 10*time.Second, "the exec to start in the plugin", func() bool { return runs.Load() == 1 })
	killed := host.Kill(t)
	code := call.Wait(t, 5*time.Second)
	took := call.Exited.Sub(killed)
	t.Logf("in-flight exec on a v2 session failed %s after kill -9 (exit %d)", took.Round(time.Millisecond), code)
	if code != 3 || !strings.Contains(call.Stderr.String(), "may or may not have run") {
		t.Fatalf("exit %d, want 3 with the unknown-outcome wording:\n%s", code, call.Stderr.String())
	}
	// "At once" is a fact, not a time: the link to the host ended on the
	// socket's close (not the heartbeat), and the call failed as a lost
	// host, not a plugin session's resume grace running out.
	if errOut := call.Stderr.String(); !strings.Contains(errOut, "lost the bridge host while") ||
		strings.Contains(errOut, "did not come back within") || strings.Contains(errOut, "dropping silent peer") {
		t.Errorf("the call did not fail on the host's socket closing:\n%s", errOut)
	}
}
