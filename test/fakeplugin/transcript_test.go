package fakeplugin_test

// The recorded plugin conversations (protocol/testdata/transcripts)
// replayed against the Go fake plugin: this test plays the host, sending
// the transcript's host frames, and the fake's frames must be the recorded
// ones, which the real Luau plugin sends (test/emulator/test/
// transcripts.test.mjs). The fake answers each action with the transcript's
// answer, so what is checked is its wire: handshake, attach, ack,
// progress, chunks, responses and errors.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/transcript"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

// frameWait guards each expected frame against a hang; it is no speed bound.
const frameWait = 30 * time.Second

func TestTranscripts(t *testing.T) {
	all, err := transcript.Load("../../protocol/testdata/transcripts")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range all {
		t.Run(tr.Name, func(t *testing.T) { replayAgainstFake(t, tr) })
	}
}

// answers replies to the transcript's requests in their order, as the
// plugin answered them.
func answers(t *testing.T, xs []*transcript.Exchange) fakeplugin.Handler {
	var mu sync.Mutex
	return func(action string, payload json.RawMessage) fakeplugin.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(xs) == 0 {
			t.Errorf("the fake was asked %s, which the transcript does not record", action)
			return fakeplugin.Reply{Err: protocol.Errorf(protocol.CodeInternal, "unrecorded")}
		}
		x := xs[0]
		xs = xs[1:]
		if x.Request.Action != action {
			t.Errorf("the fake was asked %s; the transcript records %s", action, x.Request.Action)
		}
		r := fakeplugin.Reply{Err: x.Error}
		for _, p := range x.Progress {
			r.Progress = append(r.Progress, p)
		}
		for _, raw := range x.Events {
			var e protocol.Event
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Errorf("a recorded event: %v", err)
			}
			r.Events = append(r.Events, e)
		}
		if x.Cancelled {
			// wait for the host's cancel, which answers it (a guard, not
			// a speed bound: the transcript's cancel comes first)
			r.Err, r.Delay = nil, time.Hour
		}
		if x.OK {
			r.Payload = x.Payload
			if len(x.Chunks) > 0 {
				r.ChunkSize = len(x.Chunks[0])
			}
		}
		return r
	}
}

func replayAgainstFake(t *testing.T, tr *transcript.Transcript) {
	var hello protocol.Hello
	var attach protocol.Attach
	if !tr.First(transcript.Plugin, protocol.TypeHello, &hello) || !tr.First(transcript.Plugin, protocol.TypeAttach, &attach) {
		t.Fatal("the transcript has no hello or no attach")
	}
	xs, err := tr.Exchanges()
	if err != nil {
		t.Fatal(err)
	}

	// the hello nonces in turn (one per connection), and whether the
	// socket drops (a "lost" section): then the fake must connect again
	var nonces []string
	for _, f := range tr.Frames(transcript.Plugin) {
		var h protocol.Hello
		if f.Type == protocol.TypeHello && json.Unmarshal(f.Raw, &h) == nil {
			nonces = append(nonces, h.Nonce)
		}
	}
	var mu sync.Mutex
	nonce := func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(nonces) == 0 {
			t.Errorf("the fake connected more often than the transcript records")
			return "unrecorded"
		}
		n := nonces[0]
		nonces = nonces[1:]
		return n
	}
	reconnects := len(tr.Frames(transcript.Lost)) > 0
	sockets := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case protocol.PathHealth:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"status":"ok","service":"studio-bridge","version":"0.0.0-transcript","protocolVersion":2}`)
		case protocol.PathPlugin:
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			c.SetReadLimit(protocol.PluginMaxFrameBytes)
			sockets <- c
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	port, err := strconv.Atoi(srv.URL[strings.LastIndex(srv.URL, ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeplugin.Start(fakeplugin.Config{
		Port:          port,
		InstanceID:    hello.InstanceID,
		PluginVersion: hello.PluginVersion,
		Key:           authtoken.PairingKey(tr.Settings["token"]),
		Nonce:         nonce,
		Context:       attach.Context,
		State:         attach.State,
		PlaceName:     attach.PlaceName,
		PlaceID:       attach.PlaceID,
		GameID:        attach.GameID,
		Capabilities:  attach.Capabilities,
		Handler:       answers(t, xs),
		NoReconnect:   !reconnects,
		// a guard between attempts, not a speed bound
		RetryDelays: []time.Duration{10 * time.Millisecond},
	})
	defer fake.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*frameWait)
	defer cancel()
	connected := func() *websocket.Conn {
		select {
		case c := <-sockets:
			return c
		case <-ctx.Done():
			t.Fatalf("the fake never connected: %v", fake.LastErr())
			return nil
		}
	}
	c := connected()
	defer func() { c.CloseNow() }()
	for _, step := range tr.Steps {
		for _, f := range step.Frames {
			at := fmt.Sprintf("%s:%d", tr.Name, f.Line)
			if step.From == transcript.Host {
				if err := c.Write(ctx, websocket.MessageText, f.Raw); err != nil {
					t.Fatalf("%s: send the host's %s: %v", at, f.Type, err)
				}
				continue
			}
			got := readPluginFrame(ctx, t, c, at)
			if err := transcript.Equal(f.Raw, got); err != nil {
				t.Fatalf("%s: the fake's %s differs from the plugin's: %v", at, f.Type, err)
			}
		}
		if step.From == transcript.Lost {
			// the host never read them: the socket drops, the fake resumes
			c.CloseNow()
			c = connected()
		}
	}
}

// readPluginFrame reads the fake's next frame, answering and skipping
// heartbeats.
func readPluginFrame(ctx context.Context, t *testing.T, c *websocket.Conn, at string) []byte {
	t.Helper()
	for {
		rctx, cancel := context.WithTimeout(ctx, frameWait)
		_, data, err := c.Read(rctx)
		cancel()
		if err != nil {
			t.Fatalf("%s: waiting for the fake's frame: %v", at, err)
		}
		if !transcript.Heartbeat(data) {
			return data
		}
		if m, err := protocol.Decode(data); err == nil {
			if p, ok := m.(protocol.Ping); ok {
				pong, _ := protocol.Encode(protocol.Pong{SessionID: p.SessionID, T: p.T})
				_ = c.Write(ctx, websocket.MessageText, pong)
			}
		}
	}
}
