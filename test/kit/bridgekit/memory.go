package bridgekit

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/kit/memnet"
)

// InMemory sets opt to run one Bridge on an in-memory network
// (bridge.Options.Listen and Dial over a memnet.Listener): the Bridge
// becomes the host on the returned listener, and fake plugins reach it
// with fakeplugin.Config{Port: ln.Port(), HTTPClient: ln.HTTPClient()}.
// No port is bound, so tests that use it run in parallel and cannot be
// disturbed by another process.
//
// Before the Bridge listens, a dial is refused at once (a free TCP port's
// answer), so it does not wait to join a host that is not there; the
// listener is handed out once, as a port is bound once: one Bridge per
// listener (failover between Bridges keeps real sockets).
func InMemory(opt bridge.Options) (bridge.Options, *memnet.Listener) {
	ln := memnet.Listen()
	var listened atomic.Bool
	opt.Port = ln.Port()
	opt.Listen = func(context.Context) (net.Listener, error) {
		if listened.Swap(true) {
			return nil, errors.New("bridgekit.InMemory: the memory listener was already bound (one Bridge per listener)")
		}
		return ln, nil
	}
	opt.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !listened.Load() {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: ln.Addr(), Err: memnet.ErrRefused}
		}
		return ln.Dial(ctx, network, addr)
	}
	return opt, ln
}
