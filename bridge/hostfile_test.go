package bridge

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestHostFileWhileHosting: a host writes its host file naming its pid
// while it serves and removes it when it leaves; one without a config dir
// writes none.
func TestHostFileWhileHosting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	port := kit.FreePort(t)
	b := connectWith(t, port, Options{ConfigDir: dir})
	path := hostFilePath(dir, port)
	rec, ok := readHostFile(path)
	if !ok || rec.PID != os.Getpid() || rec.Port != port {
		t.Fatalf("host file %s: %+v, %v", path, rec, ok)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("host file still there after the host left: %v", err)
	}
}

// silentPort holds a port, accepting connections and never answering, as
// a stopped process does (its kernel still accepts).
func silentPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// TestSilentHolderOfThePort: a port held by something that accepts but does
// not answer is named as a stopped studio-bridge host when the host file
// names a live process, and as another program when it names none or a
// process that is gone.
func TestSilentHolderOfThePort(t *testing.T) {
	t.Parallel()
	kit.SkipIfShort(t, "starts a process and waits out connections that never answer")
	// A process that is gone: one that has exited.
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		pid     int // 0: no host file
		stopped bool
	}{
		{"no host file", 0, false},
		{"host file of a live process", os.Getppid(), true},
		{"host file of a process that is gone", gone.Process.Pid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			port := silentPort(t)
			if tt.pid != 0 {
				if err := writeHostFile(hostFilePath(dir, port), hostRecord{PID: tt.pid, Port: port}); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := Connect(ctx, Options{Token: kit.Token(t), Port: port, ConfigDir: dir, Log: testLog(t)})
			var hn *HostNotAnsweringError
			var pe *PortInUseError
			switch {
			case tt.stopped:
				if !errors.As(err, &hn) || hn.PID != tt.pid {
					t.Fatalf("want HostNotAnsweringError for pid %d, got %v", tt.pid, err)
				}
				if protocol.CodeOf(err) != protocol.CodeHostUnavailable {
					t.Fatalf("code %q, want HOST_UNAVAILABLE", protocol.CodeOf(err))
				}
				for _, want := range []string{"studio-bridge host (pid " + strconv.Itoa(tt.pid) + ")", "does not answer", "stopped"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q does not say %q", err, want)
					}
				}
			default:
				if !errors.As(err, &pe) {
					t.Fatalf("want PortInUseError, got %v", err)
				}
			}
		})
	}
}
