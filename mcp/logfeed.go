package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// LogUpdateInterval bounds how often a subscribed logs resource is
// announced (notifications/resources/updated): the first new line is
// announced after at most this long, and a burst of lines once.
const LogUpdateInterval = 250 * time.Millisecond

// logFeed tells the clients subscribed to studio://sessions/{id}/logs when
// that session logs new lines. It keeps one watcher per subscribed Studio
// session (subscribe to the plugin's "log" events, announce each burst
// once), started while WatchResources runs and stopped when the last
// subscriber unsubscribes or leaves, or the session disconnects.
// Watchers are at most one per Studio session (protocol.MaxSessions).
type logFeed struct {
	conn bridge.Conn
	srv  *sdk.Server

	mu       sync.Mutex
	ctx      context.Context // WatchResources's, nil outside it
	subs     map[string]map[*sdk.ServerSession]bool
	watching map[string]context.CancelFunc
	sessions map[*sdk.ServerSession]bool // clients whose end is awaited
	running  sync.WaitGroup              // the watchers, which run waits for
}

// feeds maps each server New made to its logFeed, for WatchResources,
// which takes the server; WatchResources removes it when it ends.
var feeds sync.Map // *sdk.Server → *logFeed

func newLogFeed(conn bridge.Conn) *logFeed {
	return &logFeed{conn: conn, subs: map[string]map[*sdk.ServerSession]bool{},
		watching: map[string]context.CancelFunc{}, sessions: map[*sdk.ServerSession]bool{}}
}

// subscribe records a client's subscription to a logs resource.
func (f *logFeed) subscribe(ss *sdk.ServerSession, uri string) {
	sid, ok := logsSessionID(uri)
	if !ok || ss == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs[sid] == nil {
		f.subs[sid] = map[*sdk.ServerSession]bool{}
	}
	f.subs[sid][ss] = true
	if !f.sessions[ss] {
		f.sessions[ss] = true
		go func() { _ = ss.Wait(); f.leave(ss) }() // ends with the client's session
	}
	f.startLocked(sid)
}

// unsubscribe forgets a client's subscription; the last one stops the
// session's watcher.
func (f *logFeed) unsubscribe(ss *sdk.ServerSession, uri string) {
	sid, ok := logsSessionID(uri)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs[sid], ss)
	f.stopIfUnusedLocked(sid)
}

// leave forgets every subscription of a client that is gone.
func (f *logFeed) leave(ss *sdk.ServerSession) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, ss)
	for sid, m := range f.subs {
		delete(m, ss)
		f.stopIfUnusedLocked(sid)
	}
}

func (f *logFeed) stopIfUnusedLocked(sid string) {
	if len(f.subs[sid]) > 0 {
		return
	}
	delete(f.subs, sid)
	if stop := f.watching[sid]; stop != nil {
		stop()
		delete(f.watching, sid)
	}
}

func (f *logFeed) startLocked(sid string) {
	if f.ctx == nil || f.watching[sid] != nil {
		return
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.watching[sid] = cancel
	f.running.Add(1)
	go func() {
		defer f.running.Done()
		defer cancel()
		f.watch(ctx, sid)
		f.mu.Lock()
		if f.ctx != nil && ctx.Err() == nil {
			delete(f.watching, sid) // the session is gone; a new subscribe starts again
		}
		f.mu.Unlock()
	}()
}

// run starts the watchers for the subscriptions made so far and keeps
// starting them until ctx ends; then it stops them all and waits for them
// (each unsubscribes the plugin, within a second).
func (f *logFeed) run(ctx context.Context, srv *sdk.Server) {
	f.mu.Lock()
	f.ctx, f.srv = ctx, srv
	for sid := range f.subs {
		f.startLocked(sid)
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	f.ctx = nil
	for sid, stop := range f.watching {
		stop()
		delete(f.watching, sid)
	}
	f.mu.Unlock()
	f.running.Wait()
}

// watch follows one Studio session's log events and announces its logs
// resource at most once per LogUpdateInterval while lines arrive. It
// subscribes the plugin to "log" events again whenever the session comes
// back on a new connection (a plugin forgets its subscriptions then), and
// ends when the session disconnects or ctx ends.
func (f *logFeed) watch(ctx context.Context, sid string) {
	uri := sessionURIPrefix + sid + "/logs"
	events := f.conn.Events(ctx, sid)
	sessions := f.conn.WatchSessions(ctx)
	sub, _ := json.Marshal(map[string]any{"events": []string{"log"}})
	subscribe := func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, _ = f.conn.Call(cctx, sid, "subscribe", sub, bridge.CallOptions{Timeout: 10 * time.Second})
	}
	var connectedAt time.Time
	if list, err := f.conn.Sessions(ctx); err == nil {
		for _, s := range list {
			if s.SessionID == sid {
				connectedAt = s.ConnectedAt
			}
		}
	}
	subscribe()
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_, _ = f.conn.Call(uctx, sid, "unsubscribe", sub, bridge.CallOptions{Timeout: time.Second})
	}()
	var due <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sessions:
			if !ok {
				return
			}
			if ev.Session.SessionID != sid {
				continue
			}
			if ev.Kind == protocol.SessionDisconnected {
				return
			}
			if !ev.Session.ConnectedAt.Equal(connectedAt) {
				connectedAt = ev.Session.ConnectedAt
				subscribe()
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Event == "log" && due == nil {
				due = time.After(LogUpdateInterval)
			}
		case <-due:
			due = nil
			_ = f.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}
