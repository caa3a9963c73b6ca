package bridge

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestUnreachableFailsFast: with UnreachableWait, a lazy process whose host
// cannot be reached fails a call with UnreachableError (HOST_UNAVAILABLE)
// after that wait, not after FailoverWait; once a host is up it serves.
func TestUnreachableFailsFast(t *testing.T) {
	kit.UseConfigDir(t)
	port := kit.FreePort(t)
	remote := "127.0.0.1:" + strconv.Itoa(port)
	lazy, err := Connect(context.Background(), Options{Remote: remote, Lazy: true,
		JoinTimeout: 200 * time.Millisecond, UnreachableWait: 300 * time.Millisecond, Log: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	t0 := time.Now()
	_, err = lazy.Sessions(context.Background())
	var ue *UnreachableError
	if !errors.As(err, &ue) || protocol.CodeOf(err) != protocol.CodeHostUnavailable {
		t.Fatalf("sessions with the host down: want UnreachableError with HOST_UNAVAILABLE, got %#v", err)
	}
	if d := time.Since(t0); d >= FailoverWait {
		t.Fatalf("answered after %s: the unreachable wait did not apply", d)
	}

	connect(t, port)
	kit.WaitFor(t, 10*time.Second, "the lazy process to join", func() bool { return lazy.Role() == RoleClient })
	if _, err := lazy.Sessions(context.Background()); err != nil {
		t.Fatalf("sessions once the host is up: %v", err)
	}
}
