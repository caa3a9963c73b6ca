package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// Exchange is one request of a transcript and what the plugin answered.
type Exchange struct {
	Request  protocol.Request
	Progress []json.RawMessage
	// Chunks are the response's chunk frames' data, in order (a chunked
	// reply); Payload is then their concatenation.
	Chunks []string
	OK     bool
	// Payload is the result of an ok response.
	Payload json.RawMessage
	Error   *protocol.Error
	// Cancelled: the host sent a cancel for the request (its caller gave
	// up) before the plugin's response.
	Cancelled bool
	// Events are the event frames the plugin sent on the request's session
	// while it ran (after the request, before its response): the log lines
	// an exec printed while a subscription lasted.
	Events   []json.RawMessage
	answered bool
}

// Exchanges pairs each request the host sends with the plugin's progress,
// chunks and response for it.
func (t *Transcript) Exchanges() ([]*Exchange, error) {
	var out []*Exchange
	byID := map[string]*Exchange{}
	for _, s := range t.Steps {
		if s.From == Lost {
			continue // the host never saw them
		}
		for _, f := range s.Frames {
			m, err := protocol.Decode(f.Raw)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", t.Name, f.Line, err)
			}
			switch m := m.(type) {
			case protocol.Request:
				if s.From != Host {
					return nil, fmt.Errorf("%s:%d: a request from the plugin", t.Name, f.Line)
				}
				x := &Exchange{Request: m}
				byID[m.SessionID+"/"+m.ID] = x
				out = append(out, x)
			case protocol.Cancel:
				if x := byID[m.SessionID+"/"+m.ID]; x != nil && s.From == Host {
					x.Cancelled = true
				}
			case protocol.Event:
				if s.From != Plugin {
					break
				}
				for i := len(out) - 1; i >= 0; i-- {
					if x := out[i]; x.Request.SessionID == m.SessionID && !x.answered {
						x.Events = append(x.Events, f.Raw)
						break
					}
				}
			case protocol.Progress:
				if x := byID[m.SessionID+"/"+m.ID]; x != nil {
					x.Progress = append(x.Progress, m.Payload)
				}
			case protocol.Chunk:
				if x := byID[m.SessionID+"/"+m.ID]; x != nil && s.From == Plugin {
					x.Chunks = append(x.Chunks, m.Data)
				}
			case protocol.Response:
				x := byID[m.SessionID+"/"+m.ID]
				if x == nil {
					return nil, fmt.Errorf("%s:%d: a response to request %q, which was never sent", t.Name, f.Line, m.ID)
				}
				x.OK, x.Payload, x.Error, x.answered = m.OK, m.Payload, m.Error, true
				if m.Chunks > 0 {
					if m.Chunks != len(x.Chunks) {
						return nil, fmt.Errorf("%s:%d: the response announces %d chunks; %d were sent", t.Name, f.Line, m.Chunks, len(x.Chunks))
					}
					x.Payload = json.RawMessage(strings.Join(x.Chunks, ""))
				}
			}
		}
	}
	return out, nil
}

// CheckPayloads checks the exchange against the contract's types
// (package actions): the request payload and an ok result decode into the
// action's types with no unknown field and encode back to the same JSON
// value, and every progress payload of an exec is a LogLine. A renamed,
// added or dropped field in either the types or the recording fails here.
// Actions the contract does not name are not checked.
func (x *Exchange) CheckPayloads() error {
	req, res, ok := actions.Shape(x.Request.Action)
	if !ok {
		return nil
	}
	payload := x.Request.Payload
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	if err := RoundTrip(payload, req); err != nil {
		return fmt.Errorf("%s request: %w", x.Request.Action, err)
	}
	if x.OK {
		if err := RoundTrip(x.Payload, res); err != nil {
			return fmt.Errorf("%s result: %w", x.Request.Action, err)
		}
	}
	if x.Request.Action == actions.Exec {
		for _, p := range x.Progress {
			if err := RoundTrip(p, &actions.LogLine{}); err != nil {
				return fmt.Errorf("exec progress: %w", err)
			}
		}
	}
	return nil
}

// RoundTrip decodes data into v (a pointer) refusing unknown fields, and
// checks that v encodes back to the same JSON value.
func RoundTrip(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("does not decode into %T: %v", v, err)
	}
	again, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := Equal(data, again); err != nil {
		return fmt.Errorf("%T does not encode back to the recorded JSON: %v", v, err)
	}
	return nil
}
