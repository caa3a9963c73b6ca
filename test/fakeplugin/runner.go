package fakeplugin

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// errNotConnected is what sending without a live socket returns.
var errNotConnected = errors.New("fake plugin: not connected")

// runner is what the fake runs on: its connection loop in the
// background, a context Close cancels, and the lock that lets one writer at
// a time use the socket.
type runner struct {
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{} // closed when the loop has returned
	writeMu sync.Mutex
}

// start runs loop in the background until Close.
func (r *runner) start(loop func()) {
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		loop()
	}()
}

// Close stops the fake and waits for it: its socket closes and the work it
// was running is cancelled.
func (r *runner) Close() {
	r.cancel()
	<-r.done
}

// writeOn writes data as one text frame on c, within 5 s.
func (r *runner) writeOn(c *websocket.Conn, data []byte) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, data)
}
