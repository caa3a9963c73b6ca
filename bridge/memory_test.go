package bridge

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/memnet"
)

// TestBridgesInMemory: Options.Listen and Options.Dial carry whole Bridges
// without a socket: the first becomes the host on the listener it is
// given, a second joins it through Dial (it never listens), and a plugin
// that reaches the host in memory is listed by both.
func TestBridgesInMemory(t *testing.T) {
	t.Parallel()
	ln := memnet.Listen()
	var listens atomic.Int32
	opts := Options{
		Listen: func(context.Context) (net.Listener, error) {
			if listens.Add(1) > 1 {
				return nil, errors.New("listened twice")
			}
			return ln, nil
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if listens.Load() == 0 { // nothing listens yet: refused at once, as TCP is
				return nil, &net.OpError{Op: "dial", Net: network, Addr: ln.Addr(), Err: memnet.ErrRefused}
			}
			return ln.Dial(ctx, network, addr)
		},
	}
	host := connectWith(t, ln.Port(), opts)
	client := connectWith(t, ln.Port(), opts)
	if host.Role() != RoleHost || client.Role() != RoleClient {
		t.Fatalf("roles %v and %v, want host and client", host.Role(), client.Role())
	}
	if n := listens.Load(); n != 1 {
		t.Fatalf("Listen was called %d times, want once (the second Bridge joins)", n)
	}
	_, id := kit.Plugin(t, fakeplugin.Config{Port: ln.Port(), HTTPClient: ln.HTTPClient(), InstanceID: "A",
		Context: protocol.ContextEdit, State: protocol.StateEdit, PlaceName: "Place", Handler: fakeplugin.Studio})
	for name, b := range map[string]*Bridge{"host": host, "client": client} {
		kit.WaitFor(t, 10*time.Second, name+" to list the plugin", func() bool {
			s, err := b.Sessions(context.Background())
			return err == nil && len(s) == 1 && s[0].SessionID == id
		})
	}
}
