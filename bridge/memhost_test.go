package bridge

import (
	"net/http"
	"sync"
	"testing"

	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/memnet"
)

// Hosts served in memory (memnet): no socket, no port to find free, so the
// unit tests of the host run in parallel without touching the machine's
// network. A memory host's port is made up (memnet.Listener.Port); the test
// helpers that take a port (startWindow, openRaw and the raw peers built on
// it, healthOf) reach it through memHosts. Tests of sockets themselves
// (joining and failover between Bridges, floods that fill TCP buffers) use
// newV2Host and real loopback ports.

// memHosts maps a memory host's port to its listener.
var memHosts sync.Map // int → *memnet.Listener

// newMemHost is newV2Host served in memory.
func newMemHost(t testing.TB, cfg HostConfig) *v2Host {
	t.Helper()
	ln := memnet.Listen()
	memHosts.Store(ln.Port(), ln)
	t.Cleanup(func() { memHosts.Delete(ln.Port()) })
	cfg.Listener = ln
	cfg.Version = "1.0.0"
	cfg.Log = testLog(t)
	if cfg.Token.Value == "" {
		cfg.Token = kit.Token(t)
	}
	h := NewHost(cfg)
	t.Cleanup(h.Kill)
	return &v2Host{Host: h, port: ln.Port()}
}

// memClient is the HTTP client that reaches the memory host on port, or
// nil when port is a real one.
func memClient(port int) *http.Client {
	if l, ok := memHosts.Load(port); ok {
		return l.(*memnet.Listener).HTTPClient()
	}
	return nil
}

// inMemory points a fake plugin at the memory host its Port names, if it
// is one.
func inMemory(cfg fakeplugin.Config) fakeplugin.Config {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = memClient(cfg.Port)
	}
	return cfg
}
