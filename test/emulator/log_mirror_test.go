package emulator_test

// --log-mirror: in Play the client DataModel's LogService also reports the
// server's lines (issue 25 item 11). The client's plugin captures them a
// second time; logs for the client session leaves them out, because a
// mirrored line belongs to the server session.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestMirroredServerLinesBelongToTheServer(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "MIRROR", "--quiet", "--play", "--log-mirror")
	all := waitSessions(t, b, "MIRROR", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
	for _, c := range []struct{ context, line string }{{"server", "mirror-from-server"}, {"client", "mirror-from-client"}} {
		if _, stderr, code := cli(t, port, "exec", "--context", c.context, `print("`+c.line+`")`); code != 0 {
			t.Fatalf("exec in %s: exit %d, %s", c.context, code, stderr)
		}
	}
	// the switch works: the client's plugin did capture the server's line
	kit.WaitFor(t, 10*time.Second, "the client's plugin to capture the mirrored line", func() bool {
		var raw struct {
			Entries []struct{ Body string } `json:"entries"`
		}
		mustCall(t, b, all[protocol.ContextClient].SessionID, "logs", map[string]any{"count": 200}, &raw)
		for _, e := range raw.Entries {
			if e.Body == "mirror-from-server" {
				return true
			}
		}
		return false
	})
	read := func(context string) []string {
		stdout, stderr, code := cli(t, port, "--json", "logs", "--context", context, "-n", "200")
		if code != 0 {
			t.Fatalf("logs --context %s: exit %d, %s", context, code, stderr)
		}
		var d struct {
			Entries []struct{ Body string } `json:"entries"`
		}
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("logs --context %s: %v\n%s", context, err, stdout)
		}
		var bodies []string
		for _, e := range d.Entries {
			bodies = append(bodies, e.Body)
		}
		return bodies
	}
	count := func(lines []string, s string) int {
		n := 0
		for _, l := range lines {
			if l == s {
				n++
			}
		}
		return n
	}
	// A client exec that runs while the server prints: its collected output
	// (--json) leaves the mirrored server line out. The script waits until
	// the mirrored line reached its DataModel (a sync point, no clock).
	type execOut struct {
		stdout, stderr string
		code           int
	}
	done := make(chan execOut, 1)
	go func() {
		o, e, c := cli(t, port, "--json", "exec", "--context", "client", `
			local seen = false
			local conn = game:GetService("LogService").MessageOut:Connect(function(m)
				if m == "mirror-during-exec" then seen = true end
			end)
			print("exec-waiting")
			while not seen do task.wait(0.05) end
			conn:Disconnect()
			print("exec-done")`)
		done <- execOut{o, e, c}
	}()
	kit.WaitFor(t, 20*time.Second, "the client exec to start", func() bool {
		var raw struct {
			Entries []struct{ Body string } `json:"entries"`
		}
		mustCall(t, b, all[protocol.ContextClient].SessionID, "logs", map[string]any{"count": 50}, &raw)
		for _, e := range raw.Entries {
			if e.Body == "exec-waiting" {
				return true
			}
		}
		return false
	})
	if _, stderr, code := cli(t, port, "exec", "--context", "server", `print("mirror-during-exec")`); code != 0 {
		t.Fatalf("exec in server: exit %d, %s", code, stderr)
	}
	var r execOut
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the client exec did not end after the server printed")
	}
	var ex struct {
		Logs []struct{ Body string } `json:"logs"`
	}
	// --json: the streamed lines, then the result on the last line; the
	// mirrored line is in neither (the streamed lines go through the same
	// rule: commands/mirror_stream.go)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &ex) != nil {
		t.Fatalf("client exec: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "mirror-during-exec") {
		t.Errorf("the client exec streamed the server's line: %q", r.stdout)
	}
	if !strings.Contains(strings.Join(lines[:len(lines)-1], "\n"), "exec-done") {
		t.Errorf("the client exec did not stream its own lines: %q", r.stdout)
	}
	var bodies []string
	for _, l := range ex.Logs {
		bodies = append(bodies, l.Body)
	}
	if strings.Join(bodies, ",") != "exec-waiting,exec-done" {
		t.Errorf("the client exec's logs: %q; want its own two lines only (the server's line is the server's)", bodies)
	}

	client, server := read("client"), read("server")
	if n := count(client, "mirror-from-server"); n != 0 {
		t.Errorf("the client session's logs show the server's line %d times; want 0 (it is the server's): %q", n, client)
	}
	if n := count(client, "mirror-from-client"); n != 1 {
		t.Errorf("the client session's logs show its own line %d times; want 1: %q", n, client)
	}
	if n := count(server, "mirror-from-server"); n != 1 {
		t.Errorf("the server session's logs show its line %d times; want 1: %q", n, server)
	}
	if strings.Contains(strings.Join(server, "\n"), "mirror-from-client") {
		t.Errorf("the server's logs show the client's line: %q", server)
	}
}

// logs --follow on a client session shows the client's own lines and not
// the server's mirrored ones, by the same rule as logs without --follow.
func TestMirroredServerLinesFollowed(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "MIRRORF", "--quiet", "--play", "--log-mirror")
	waitSessions(t, b, "MIRRORF", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)
	cmd := userCmd(t, "", port, "logs", "--follow", "--context", "client", "-n", "0")
	var out, errOut kit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	execIn := func(context, line string) {
		t.Helper()
		if _, stderr, code := cli(t, port, "exec", "--context", context, `print("`+line+`")`); code != 0 {
			t.Fatalf("exec in %s: exit %d, %s", context, code, stderr)
		}
	}
	// follow is live once a client line printed after it started shows
	kit.WaitFor(t, 30*time.Second, "logs --follow to show the client's lines", func() bool {
		execIn("client", "follow-ready")
		return strings.Contains(out.String(), "follow-ready")
	})
	for i := range 3 {
		execIn("server", fmt.Sprintf("mirror-followed-%d", i))
		execIn("client", fmt.Sprintf("own-followed-%d", i))
	}
	// the client's lines show in order, each after the mirrored line before
	// it was judged
	kit.WaitFor(t, 30*time.Second, "the client's last line to show", func() bool {
		return strings.Contains(out.String(), "own-followed-2")
	})
	got := out.String()
	for i := range 3 {
		if strings.Contains(got, fmt.Sprintf("mirror-followed-%d", i)) {
			t.Errorf("logs --follow on the client showed the server's line %d: %q", i, got)
		}
		if n := strings.Count(got, fmt.Sprintf("own-followed-%d\n", i)); n != 1 {
			t.Errorf("logs --follow showed the client's line %d %d times, want 1: %q", i, n, got)
		}
	}
}
