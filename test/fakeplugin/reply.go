package fakeplugin

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Reply is a scripted answer to one request.
type Reply struct {
	// Progress payloads are sent, in order, before the response.
	Progress []any
	// Events are sent after Progress, before the response, on the
	// request's session (their SessionID is set): the log events of lines
	// the work printed while a subscription lasted.
	Events []protocol.Event
	// Payload is the response payload when Err is nil.
	Payload any
	// Err makes the response an error.
	Err *protocol.Error
	// Delay waits before answering (cancellable by the host's cancel).
	Delay time.Duration
	// ChunkSize > 0 sends the payload as chunks of at most that many bytes.
	ChunkSize int
	// Stall never answers.
	Stall bool
	// Drop closes the socket instead of answering (after any Progress),
	// and the work is lost: a plugin that comes back answers the host's
	// wait for it UNKNOWN_OUTCOME.
	Drop bool
	// Raw, when set, is written as one text frame instead of a response:
	// garbage, a frame of the wrong shape, or one over the host's limit.
	// The request is then never answered properly.
	Raw []byte
}

// Oversize is a response frame for request id with a payload of n bytes:
// over the host's frame limit, its content never matters.
func Oversize(id string, n int) []byte {
	head := `{"type":"response","id":"` + id + `","ok":true,"payload":"`
	return []byte(head + strings.Repeat("x", max(0, n-len(head)-2)) + `"}`)
}

// Handler answers one action.
type Handler func(action string, payload json.RawMessage) Reply

// reply is h's answer to req; with no handler, every action is answered
// with {"action": name}.
func reply(h Handler, req protocol.Request) Reply {
	if h == nil {
		return Reply{Payload: map[string]string{"action": req.Action}}
	}
	return h(req.Action, req.Payload)
}

// progress is r's progress frames for request id of session sid, then its
// events.
func (r Reply) progress(sid, id string) []protocol.Message {
	frames := make([]protocol.Message, 0, len(r.Progress))
	for _, prog := range r.Progress {
		raw, _ := json.Marshal(prog)
		frames = append(frames, protocol.Progress{SessionID: sid, ID: id, Payload: raw})
	}
	for _, e := range r.Events {
		e.SessionID = sid
		frames = append(frames, e)
	}
	return frames
}

// outcome waits out r's Delay and returns the frames that answer request id
// of session sid: the response, after its chunks when r.ChunkSize asks for
// them. A request the host cancelled (ctx ended) before it was answered is
// answered CANCELLED "<action> cancelled", as the Luau plugin answers it.
// ok is false when r stalls: it is never answered.
func (r Reply) outcome(ctx context.Context, action, sid, id string) (frames []protocol.Message, ok bool) {
	if r.Stall {
		<-ctx.Done()
		return nil, false
	}
	if r.Delay > 0 {
		select {
		case <-time.After(r.Delay):
		case <-ctx.Done():
		}
	}
	raw, err := json.Marshal(r.Payload)
	switch {
	case ctx.Err() != nil:
		return []protocol.Message{protocol.Response{SessionID: sid, ID: id, Error: protocol.Errorf(protocol.CodeCancelled, "%s cancelled", action)}}, true
	case r.Err != nil:
		return []protocol.Message{protocol.Response{SessionID: sid, ID: id, Error: r.Err}}, true
	case err != nil:
		return []protocol.Message{protocol.Response{SessionID: sid, ID: id, Error: protocol.Errorf(protocol.CodeInternal, "%v", err)}}, true
	case r.ChunkSize > 0:
		parts := protocol.Split(raw, r.ChunkSize)
		for i, part := range parts {
			frames = append(frames, protocol.Chunk{SessionID: sid, ID: id, Seq: i, Data: part})
		}
		return append(frames, protocol.Response{SessionID: sid, ID: id, OK: true, Chunks: len(parts)}), true
	}
	return []protocol.Message{protocol.Response{SessionID: sid, ID: id, OK: true, Payload: raw}}, true
}
