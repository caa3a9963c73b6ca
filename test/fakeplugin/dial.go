package fakeplugin

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// defaultRetryDelays are the real plugin's waits between reconnection
// attempts; the last one repeats.
var defaultRetryDelays = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// backoff is a reconnection schedule: its delays in turn, the last one
// repeating, back to the first after a socket that was welcomed.
type backoff struct {
	delays []time.Duration
	next   int
}

// wait waits before the next attempt; welcomed says whether the socket that
// just ended got that far, which restarts the schedule. It reports false,
// at once, when ctx has ended or ends first.
func (b *backoff) wait(ctx context.Context, welcomed bool) bool {
	if ctx.Err() != nil {
		return false
	}
	if welcomed {
		b.next = 0
	}
	d := b.delays[min(b.next, len(b.delays)-1)]
	b.next++
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// dialPlugin finds the host on port as the real plugin does, by polling
// /health, and opens its /plugin socket with the read limit a plugin has;
// through client when set (a host in memory), else over loopback.
// The handshake is the caller's.
func dialPlugin(ctx context.Context, port int, client *http.Client) (*websocket.Conn, error) {
	var opts *websocket.DialOptions
	if client != nil {
		opts = &websocket.DialOptions{HTTPClient: client}
	} else {
		client = http.DefaultClient
	}
	base := "127.0.0.1:" + strconv.Itoa(port)
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(hctx, http.MethodGet, "http://"+base+protocol.PathHealth, nil)
	if err != nil {
		return nil, fmt.Errorf("health: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("health: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("health: %s", resp.Status)
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(dctx, "ws://"+base+protocol.PathPlugin, opts)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	c.SetReadLimit(protocol.ClientMaxFrameBytes)
	return c, nil
}
