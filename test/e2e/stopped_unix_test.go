//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestStoppedHostIsNamed: with the host process stopped (SIGSTOP, as Ctrl-Z,
// a debugger or a suspended laptop leave it) a fresh command says that a
// studio-bridge host with that pid holds the port but does not answer, and
// what to do, instead of "in use by another program"; exit code 3.
func TestStoppedHostIsNamed(t *testing.T) {
	host, port := serveHost(t)
	p := strconv.Itoa(port)
	startPlugin(t, port, "A", protocol.ContextEdit, protocol.StateEdit)
	if _, err := os.Stat(filepath.Join(kit.ConfigDir(t), "host-"+p+".json")); err != nil {
		t.Fatalf("the host wrote no host file: %v", err)
	}
	if err := syscall.Kill(host.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Registered after serve's cleanup, so it runs first: the host can
	// then act on the SIGTERM it is sent.
	t.Cleanup(func() { _ = syscall.Kill(host.PID(), syscall.SIGCONT) })

	pid := strconv.Itoa(host.PID())
	for _, args := range [][]string{{"sessions"}, {"exec", "print(1)"}} {
		r := run(t, 30*time.Second, nil, append(args, "--port", p)...)
		t.Logf("%v with the host stopped: exit %d after %s: %s", args, r.Code, r.Took.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
		if r.Code != 3 {
			t.Errorf("%v with the host stopped: exit %d, want 3; stderr:\n%s", args, r.Code, r.Stderr)
		}
		for _, want := range []string{"studio-bridge host (pid " + pid + ")", "does not answer", "kill -CONT " + pid} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("%v with the host stopped: stderr does not say %q:\n%s", args, want, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, "another program") {
			t.Errorf("%v calls the stopped host another program:\n%s", args, r.Stderr)
		}
	}

	// Resumed, it serves again.
	if err := syscall.Kill(host.PID(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r := run(t, 30*time.Second, nil, "sessions", "--port", p); r.Code != 0 {
		t.Fatalf("sessions after SIGCONT: exit %d:\n%s", r.Code, r.Stderr)
	}
}
