package emulator_test

// Targeting people can type, on every surface: --session, .connect and
// MCP's sessionId take a unique id prefix or a window's instanceId, and an
// explicit --context picks the one window that has it.

import (
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestTargetingByPrefixAndContext(t *testing.T) {
	port, _, b := startWindow(t, "--instance", "E2E-TGT-EDIT", "--quiet")
	kit.Studio(t, "studio-play", port, "--instance", "E2E-TGT-PLAY", "--play", "--quiet")
	edit := waitSessions(t, b, "E2E-TGT-EDIT", protocol.ContextEdit)[protocol.ContextEdit]
	play := waitSessions(t, b, "E2E-TGT-PLAY", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)

	// which DataModel ran the script
	where := `local R = game:GetService("RunService") print(if R:IsEdit() then "edit" elseif R:IsClient() then "client" else "server")`
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string
	}{
		{"an instanceId: the command's default context (server for exec)", []string{"exec", "--session", "E2E-TGT-PLAY", where}, 0, "server\n", nil},
		{"a prefix of an instanceId", []string{"exec", "--session", "E2E-TGT-E", where}, 0, "edit\n", nil},
		{"an instanceId and a context", []string{"exec", "--session", "E2E-TGT-PLAY", "--context", "client", where}, 0, "client\n", nil},
		{"a prefix of a session id", []string{"exec", "--session", play[protocol.ContextClient].SessionID[:8], where}, 0, "client\n", nil},
		{"an explicit context only one window has", []string{"exec", "--context", "server", where}, 0, "server\n", nil},
		{"the default context never picks a window", []string{"exec", where}, 3, "", []string{"Multiple Studio instances connected", "E2E-TGT-EDIT", "E2E-TGT-PLAY"}},
		{"an ambiguous prefix lists the candidates", []string{"exec", "--session", "E2E-TGT", where}, 3, "",
			[]string{`"E2E-TGT" matches more than one`, edit.SessionID, play[protocol.ContextServer].SessionID}},
		{"a prefix too short", []string{"state", "--session", "E2E"}, 3, "", []string{"at least 4 characters"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := cli(t, port, tc.args...)
			if code != tc.code || stdout != tc.stdout {
				t.Errorf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.code, stdout, tc.stdout, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}

	// the terminal's .connect uses the same resolver
	isEdit := `print(game:GetService("RunService"):IsEdit())`
	stdout, stderr := terminalPiped(t, port, ".connect E2E-TGT-P\n"+isEdit+"\n.connect "+edit.SessionID[:8]+"\n"+isEdit+"\n")
	if stdout != "false\ntrue\n" {
		t.Errorf("terminal .connect by prefix: stdout %q, stderr %q", stdout, stderr)
	}

	// MCP's sessionId too, and an ambiguous one lists the candidates
	cs := mcpSession(t, port)
	out, isErr := mcpCall(t, cs, "studio_exec", map[string]any{"sessionId": "E2E-TGT-P", "context": "client", "script": where})
	if isErr || !strings.Contains(mustJSONString(out["logs"]), `"body":"client"`) {
		t.Errorf("studio_exec by instance prefix: %v (error %v)", out, isErr)
	}
	out, isErr = mcpCall(t, cs, "studio_exec", map[string]any{"script": "return 1", "context": "server"})
	if isErr || out["success"] != true {
		t.Errorf("studio_exec with the one window that has a server: %v (error %v)", out, isErr)
	}
	out, isErr = mcpCall(t, cs, "studio_state", map[string]any{"sessionId": "E2E-TGT"})
	if !isErr || !strings.Contains(mustJSONString(out), "matches more than one") || !strings.Contains(mustJSONString(out), edit.SessionID) {
		t.Errorf("studio_state with an ambiguous prefix: %v (error %v)", out, isErr)
	}
}
