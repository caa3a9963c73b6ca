package bridge

// The recorded plugin conversations (protocol/testdata/transcripts)
// replayed against the host: a scripted peer sends the transcript's plugin
// frames, the test makes the calls whose requests the transcript records,
// and the host's frames must be the recorded ones, its call results the
// plugin's answers. The host's random values (the welcome's nonce, session
// ids, resume secrets) are injected from the transcript's own frames. The
// same files are replayed against the real Luau plugin
// (test/emulator/test/transcripts.test.mjs) and the Go fake plugin.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/protocol/transcript"
)

// transcriptFrameWait guards each expected frame against a hang; it is no
// speed bound.
const transcriptFrameWait = 30 * time.Second

func TestTranscripts(t *testing.T) {
	all, err := transcript.Load("../protocol/testdata/transcripts")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range all {
		t.Run(tr.Name, func(t *testing.T) { replayAgainstHost(t, tr) })
	}
}

// sequence serves the values in turn; past the end it fails the test.
func sequence(t *testing.T, what string, values []string) func() string {
	var mu sync.Mutex
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(values) == 0 {
			t.Errorf("the host drew more %s than the transcript records", what)
			return "unrecorded-" + what
		}
		v := values[0]
		values = values[1:]
		return v
	}
}

type replayedCall struct {
	payload  json.RawMessage
	progress []json.RawMessage
	err      error
}

func replayAgainstHost(t *testing.T, tr *transcript.Transcript) {
	var welcome protocol.Welcome
	if !tr.First(transcript.Host, protocol.TypeWelcome, &welcome) {
		t.Fatal("the transcript has no welcome")
	}
	nonces, ids, secrets := []string{}, []string{}, []string{}
	for _, f := range tr.Frames(transcript.Host) {
		switch f.Type {
		case protocol.TypeWelcome:
			var w protocol.Welcome
			_ = json.Unmarshal(f.Raw, &w)
			nonces = append(nonces, w.Nonce)
		case protocol.TypeAttached:
			var a protocol.Attached
			_ = json.Unmarshal(f.Raw, &a)
			if !a.Resumed { // a resumed session keeps its id and secret
				ids, secrets = append(ids, a.SessionID), append(secrets, a.ResumeSecret)
			}
		}
	}
	xs, err := tr.Exchanges()
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]*transcript.Exchange{}
	for _, x := range xs {
		answers[x.Request.SessionID+"/"+x.Request.ID] = x
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(HostConfig{
		Listener:    ln,
		Log:         testLog(t),
		Version:     welcome.HostVersion,
		Heartbeat:   time.Duration(welcome.HeartbeatIntervalMs) * time.Millisecond,
		ResumeGrace: time.Duration(welcome.ResumeGraceMs) * time.Millisecond,
		Token:       authtoken.Token{Value: tr.Settings["token"]},
		entropy: entropy{
			nonce:        sequence(t, "nonces", nonces),
			sessionID:    sequence(t, "session ids", ids),
			resumeSecret: sequence(t, "resume secrets", secrets),
		},
	})
	defer h.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 2*transcriptFrameWait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String()+protocol.PathPlugin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(protocol.PluginMaxFrameBytes)

	var calls sync.WaitGroup
	defer calls.Wait()
	// events: what the host relays to its local subscribers of each
	// session, which must be the plugin's event frames.
	events := map[string]<-chan protocol.Event{}
	for _, id := range ids {
		events[id] = h.hub.watchEvents(ctx, id, nil, nil)
	}
	results := map[string]chan replayedCall{}
	// cancels ends a call the way its caller gives up: the transcript's
	// cancel frame is then the host's to send.
	cancels := map[string]context.CancelFunc{}
	// progressSeen gets a value each time a call reads a progress payload,
	// progressSent counts those the test sent it: before cancelling, the
	// test waits until the call has read them all (a sync point; without
	// it the host could read a progress frame after the cancel and answer
	// it with a notice the transcript does not record).
	progressSeen := map[string]chan struct{}{}
	progressSent := map[string]int{}
	defer func() {
		for _, stop := range cancels {
			stop()
		}
	}()
	for _, step := range tr.Steps {
		for _, f := range step.Frames {
			at := fmt.Sprintf("%s:%d", tr.Name, f.Line)
			if step.From == transcript.Lost {
				continue // the plugin sent it; the socket dropped first
			}
			if step.From == transcript.Plugin {
				if err := c.Write(ctx, websocket.MessageText, f.Raw); err != nil {
					t.Fatalf("%s: send the plugin's %s: %v", at, f.Type, err)
				}
				if f.Type == protocol.TypeEvent {
					checkEvent(t, at, f.Raw, events)
				}
				if f.Type == protocol.TypeProgress {
					var p protocol.Progress
					_ = json.Unmarshal(f.Raw, &p)
					progressSent[p.SessionID+"/"+p.ID]++
				}
				if f.Type == protocol.TypeResponse {
					var r protocol.Response
					_ = json.Unmarshal(f.Raw, &r)
					key := r.SessionID + "/" + r.ID
					checkCall(t, at, answers[key], results[key])
				}
				continue
			}
			if f.Type == protocol.TypeCancel {
				var m protocol.Cancel
				_ = json.Unmarshal(f.Raw, &m)
				key := m.SessionID + "/" + m.ID
				stop := cancels[key]
				if stop == nil {
					t.Fatalf("%s: a cancel for a request the host never sent", at)
				}
				for i := 0; i < progressSent[key]; i++ {
					select {
					case <-progressSeen[key]:
					case <-time.After(transcriptFrameWait):
						t.Fatalf("%s: the call never read progress %d", at, i)
					}
				}
				progressSent[key] = 0
				stop()
			}
			if f.Type == protocol.TypeRequest {
				var req protocol.Request
				if err := json.Unmarshal(f.Raw, &req); err != nil {
					t.Fatalf("%s: %v", at, err)
				}
				done := make(chan replayedCall, 1)
				results[req.SessionID+"/"+req.ID] = done
				payload := typedPayload(t, at, req)
				callCtx, stop := context.WithCancel(ctx)
				cancels[req.SessionID+"/"+req.ID] = stop
				seen := make(chan struct{}, len(answers[req.SessionID+"/"+req.ID].Progress))
				progressSeen[req.SessionID+"/"+req.ID] = seen
				calls.Add(1)
				go func() {
					defer calls.Done()
					var r replayedCall
					var mu sync.Mutex
					r.payload, r.err = h.call(callCtx, req.SessionID, req.Action, payload, time.Duration(req.TimeoutMs)*time.Millisecond, func(p json.RawMessage) {
						mu.Lock()
						defer mu.Unlock()
						r.progress = append(r.progress, p)
						select {
						case seen <- struct{}{}:
						default:
						}
					})
					mu.Lock()
					defer mu.Unlock()
					done <- r
				}()
			}
			got := readHostFrame(ctx, t, c, at)
			if err := transcript.Equal(f.Raw, got); err != nil {
				t.Fatalf("%s: the host's %s differs: %v", at, f.Type, err)
			}
		}
		if step.From == transcript.Lost {
			// the socket drops; the plugin connects again (a resume)
			c.CloseNow()
			if c, _, err = websocket.Dial(ctx, "ws://"+ln.Addr().String()+protocol.PathPlugin, nil); err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			c.SetReadLimit(protocol.PluginMaxFrameBytes)
		}
	}
}

// typedPayload is the request payload the way the host's callers build it:
// through the action's type in package actions (a renamed field then shows
// in the host's frame), raw for an action the contract does not name.
func typedPayload(t *testing.T, at string, req protocol.Request) json.RawMessage {
	in, _, ok := actions.Shape(req.Action)
	if !ok {
		return req.Payload
	}
	if err := transcript.RoundTrip(req.Payload, in); err != nil {
		t.Fatalf("%s: the recorded %s payload is not the contract's: %v", at, req.Action, err)
	}
	out, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkCall waits for the call the plugin just answered and compares its
// outcome with the answer recorded.
func checkCall(t *testing.T, at string, x *transcript.Exchange, done chan replayedCall) {
	t.Helper()
	if x == nil || done == nil {
		t.Fatalf("%s: a response to a request the host never sent", at)
	}
	var r replayedCall
	select {
	case r = <-done:
	case <-time.After(transcriptFrameWait):
		t.Fatalf("%s: the host's call did not end after the plugin's response", at)
	}
	if x.Cancelled {
		// the host stopped waiting when it sent the cancel, so the plugin's
		// late answer is not the call's, and progress the host read after
		// that (the test cancels as soon as it has sent it) is not either
		var perr *protocol.Error
		if !errors.As(r.err, &perr) || perr.Code != protocol.CodeCancelled {
			t.Fatalf("%s: the cancelled call ended with %v, not %s", at, r.err, protocol.CodeCancelled)
		}
		if len(r.progress) > len(x.Progress) {
			t.Fatalf("%s: the cancelled call saw %d progress payloads; the plugin sent %d", at, len(r.progress), len(x.Progress))
		}
		for i := range r.progress {
			if err := transcript.Equal(x.Progress[i], r.progress[i]); err != nil {
				t.Fatalf("%s: progress %d: %v", at, i, err)
			}
		}
		return
	}
	if len(r.progress) != len(x.Progress) {
		t.Errorf("%s: the call saw %d progress payloads; the plugin sent %d", at, len(r.progress), len(x.Progress))
	} else {
		for i := range r.progress {
			if err := transcript.Equal(x.Progress[i], r.progress[i]); err != nil {
				t.Errorf("%s: progress %d: %v", at, i, err)
			}
		}
	}
	if x.Error != nil {
		var perr *protocol.Error
		if !errors.As(r.err, &perr) || perr.Code != x.Error.Code || perr.Message != x.Error.Message {
			t.Fatalf("%s: the call ended with %v; the plugin answered %s: %s", at, r.err, x.Error.Code, x.Error.Message)
		}
		if err := transcript.Equal(mustJSON(t, x.Error.Details), mustJSON(t, perr.Details)); err != nil {
			t.Fatalf("%s: the error's details: %v", at, err)
		}
		return
	}
	if r.err != nil {
		t.Fatalf("%s: the call failed: %v", at, r.err)
	}
	if err := transcript.Equal(x.Payload, r.payload); err != nil {
		t.Fatalf("%s: the call's result is not the plugin's answer: %v", at, err)
	}
	if err := x.CheckPayloads(); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
}

// checkEvent waits for the host to relay the plugin's event frame sent to
// the session's local subscribers.
func checkEvent(t *testing.T, at string, sent []byte, events map[string]<-chan protocol.Event) {
	t.Helper()
	var ev protocol.Event
	if err := json.Unmarshal(sent, &ev); err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	watch := events[ev.SessionID]
	if watch == nil {
		t.Fatalf("%s: an event for session %q, which the transcript never attached", at, ev.SessionID)
	}
	select {
	case got := <-watch:
		frame, err := protocol.Encode(got)
		if err != nil {
			t.Fatal(err)
		}
		if err := transcript.Equal(sent, frame); err != nil {
			t.Fatalf("%s: the host relayed the plugin's event as: %v", at, err)
		}
	case <-time.After(transcriptFrameWait):
		t.Fatalf("%s: the host never relayed the plugin's event", at)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readHostFrame reads the host's next frame, answering and skipping
// heartbeats.
func readHostFrame(ctx context.Context, t *testing.T, c *websocket.Conn, at string) []byte {
	t.Helper()
	for {
		rctx, cancel := context.WithTimeout(ctx, transcriptFrameWait)
		_, data, err := c.Read(rctx)
		cancel()
		if err != nil {
			t.Fatalf("%s: waiting for the host's frame: %v", at, err)
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
