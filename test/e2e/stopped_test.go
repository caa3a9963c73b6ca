package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestStoppedHostIsNamed: with the host process stopped (kit.Suspend: SIGSTOP,
// or every thread suspended on Windows, as Ctrl-Z, a debugger or a suspended
// laptop leave it) a fresh command says that a studio-bridge host with that
// pid holds the port but does not answer, and what to do (the platform's
// own advice), instead of "in use by another program"; exit code 3.
func TestStoppedHostIsNamed(t *testing.T) {
	host, port := serveHost(t)
	p := strconv.Itoa(port)
	startPlugin(t, port, "A", protocol.ContextEdit, protocol.StateEdit)
	if _, err := os.Stat(filepath.Join(kit.ConfigDir(t), "host-"+p+".json")); err != nil {
		t.Fatalf("the host wrote no host file: %v", err)
	}
	if err := kit.Suspend(host.PID()); err != nil {
		t.Fatal(err)
	}
	// Registered after serve's cleanup, so it runs first: the host can
	// then act on the SIGTERM it is sent.
	t.Cleanup(func() { _ = kit.Resume(host.PID()) })

	pid := strconv.Itoa(host.PID())
	advice := "kill -CONT " + pid
	if runtime.GOOS == "windows" {
		advice = "taskkill /PID " + pid
	}
	for _, args := range [][]string{{"sessions"}, {"exec", "print(1)"}} {
		r := run(t, 30*time.Second, nil, append(args, "--port", p)...)
		t.Logf("%v with the host stopped: exit %d after %s: %s", args, r.Code, r.Took.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
		if r.Code != 3 {
			t.Errorf("%v with the host stopped: exit %d, want 3; stderr:\n%s", args, r.Code, r.Stderr)
		}
		for _, want := range []string{"studio-bridge host (pid " + pid + ")", "does not answer", advice} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("%v with the host stopped: stderr does not say %q:\n%s", args, want, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, "another program") {
			t.Errorf("%v calls the stopped host another program:\n%s", args, r.Stderr)
		}
	}

	// Resumed, it serves again.
	if err := kit.Resume(host.PID()); err != nil {
		t.Fatal(err)
	}
	if r := run(t, 30*time.Second, nil, "sessions", "--port", p); r.Code != 0 {
		t.Fatalf("sessions after kit.Resume: exit %d:\n%s", r.Code, r.Stderr)
	}
}
