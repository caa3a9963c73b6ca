package e2e

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Ctrl-C stops polling, names the task (which runs on: the API has no
// cancel) and exits 130.
func TestExecCloudInterrupt(t *testing.T) {
	s := cloudtest.New()
	defer s.Close()
	s.Set(func(s *cloudtest.Server) { s.Default = cloudtest.Outcome{Never: true, Logs: []string{"working"}} })
	s.Set(func(s *cloudtest.Server) { s.LogsWhileRunning = true })
	var out, errb bytes.Buffer
	cmd := start(t, env(t, s, newBridgePort(t)), &out, &errb, "exec", "--cloud", "--log-level", "debug", "return 1")
	deadline := time.Now().Add(30 * time.Second)
	for len(s.Tasks()) == 0 || s.Tasks()[0].Polls < 2 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the task was not polled\n%s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	code := kit.InterruptAndWait(t, cmd, 40*time.Second)
	path := s.Tasks()[0].Path
	if code != 130 || !strings.Contains(errb.String(), path) || !strings.Contains(errb.String(), "runs on") {
		t.Fatalf("exit %d, want 130 and the task path %s\nstderr:\n%s", code, path, errb.String())
	}
	if strings.Contains(out.String()+errb.String(), cloudtest.Key) {
		t.Fatal("the API key is in the output")
	}
}
