package bridge

// Joining fails fast, with the reason, when no usable host answers: none
// is reachable, or the one there refuses this process.

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestUnreachableFailsFast: with UnreachableWait, a lazy process whose host
// cannot be reached fails a call with UnreachableError (HOST_UNAVAILABLE)
// after that wait, not after FailoverWait; once a host is up it serves.
func TestUnreachableFailsFast(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	remote := "127.0.0.1:" + strconv.Itoa(port)
	lazy, err := Connect(context.Background(), Options{Token: kit.Token(t), Remote: remote, Lazy: true,
		JoinTimeout: 200 * time.Millisecond, UnreachableWait: 300 * time.Millisecond, Log: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	_, err = lazy.Sessions(context.Background())
	// Which wait ended the call is in the error, not the clock: only the
	// UnreachableWait's expiry returns an UnreachableError, and it names
	// that wait; FailoverWait's is a plain HOST_UNAVAILABLE "within 10s".
	var ue *UnreachableError
	if !errors.As(err, &ue) || protocol.CodeOf(err) != protocol.CodeHostUnavailable {
		t.Fatalf("sessions with the host down: want UnreachableError with HOST_UNAVAILABLE, got %#v", err)
	}
	if want := "(still trying for 300ms)"; !strings.Contains(err.Error(), want) || ue.Addr != remote {
		t.Fatalf("the error does not name the unreachable wait %s at %s: %v", want, remote, err)
	}

	connect(t, port)
	kit.WaitFor(t, 10*time.Second, "the lazy process to join", func() bool { return lazy.Role() == RoleClient })
	if _, err := lazy.Sessions(context.Background()); err != nil {
		t.Fatalf("sessions once the host is up: %v", err)
	}
}

// TestRefusedJoinFailsAtOnce: a host that refuses this process's hello (an
// older host that speaks none of its protocol versions) ends Connect at once
// with the host's reason, instead of retrying until JoinTimeout.
func TestRefusedJoinFailsAtOnce(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	var hellos atomic.Int32
	kit.ServeHTTP(t, port, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hellos.Add(1)
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		if _, _, err := c.Read(r.Context()); err == nil {
			reject(c, protocol.CodeUnsupportedProtocol, "this host speaks protocol 0 only")
		}
	}))
	_, err := Connect(context.Background(), Options{Token: kit.Token(t), Port: port, Log: testLog(t), JoinTimeout: 3 * time.Second})
	if protocol.CodeOf(err) != protocol.CodeUnsupportedProtocol || !strings.Contains(err.Error(), "protocol 0 only") {
		t.Fatalf("want the host's UNSUPPORTED_PROTOCOL reason, got %v", err)
	}
	if n := hellos.Load(); n != 1 {
		t.Errorf("the host was asked %d times: a refused join must not be retried", n)
	}
}
