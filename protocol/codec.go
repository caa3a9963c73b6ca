package protocol

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	// A drop-in encoding/json that decodes several times faster: joining a
	// host with 1,000 sessions spends most of its time decoding the list.
	json "github.com/segmentio/encoding/json"
)

// Encode returns the wire form of m: one JSON object whose "type" field comes
// first.
func Encode(m Message) ([]byte, error) {
	// No HTML escaping: payloads relay byte for byte, and a chunk of
	// MaxChunkBytes cannot grow past the frame limit.
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(m); err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.Type(), err)
	}
	body := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("encode %s: not a JSON object", m.Type())
	}
	var buf bytes.Buffer
	buf.Grow(len(body) + len(m.Type()) + 12)
	buf.WriteString(`{"type":"`)
	buf.WriteString(m.Type())
	buf.WriteByte('"')
	if len(body) > 2 {
		buf.WriteByte(',')
	}
	buf.Write(body[1:])
	return buf.Bytes(), nil
}

// Decode parses one frame. It never panics; a frame that is not a JSON object
// of a known type with its required fields yields an *Error whose code is
// CodeMalformedFrame or CodeUnknownMessage, with a message fit to send back.
//
// Nesting is bounded before anything is decoded (CheckDepth, MaxJSONDepth):
// a deeper frame is malformed, whatever else it holds.
func Decode(data []byte) (Message, error) {
	if err := CheckDepth(data, MaxJSONDepth); err != nil {
		return nil, malformed("frame is not acceptable JSON: %v", err)
	}
	typ, ok := peekType(data)
	if !ok {
		var head struct {
			Type *string `json:"type"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return nil, malformed("frame is not a JSON object: %v", jsonReason(err))
		}
		if head.Type == nil || *head.Type == "" {
			return nil, malformed(`frame has no "type" field`)
		}
		typ = *head.Type
	}
	newMsg, ok := registry[typ]
	if !ok {
		return nil, &Error{Code: CodeUnknownMessage, Message: fmt.Sprintf("unknown message type %q", clip(typ))}
	}
	ptr := newMsg()
	if err := json.Unmarshal(data, ptr); err != nil {
		return nil, malformed("bad %s frame: %v", typ, jsonReason(err))
	}
	m := deref(ptr)
	if err := validate(m); err != nil {
		return nil, err
	}
	return m, nil
}

// peekType reads the type of a frame that starts the way Encode writes one,
// {"type":"name", so most frames are parsed once rather than twice. Any
// other layout falls back to a full parse.
func peekType(data []byte) (string, bool) {
	const prefix = `{"type":"`
	if len(data) < len(prefix) || string(data[:len(prefix)]) != prefix {
		return "", false
	}
	rest := data[len(prefix):]
	for i, c := range rest {
		switch {
		case c == '"':
			if i == 0 || i+1 >= len(rest) || (rest[i+1] != ',' && rest[i+1] != '}') {
				return "", false
			}
			return string(rest[:i]), true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", false
		}
	}
	return "", false
}

var registry = map[string]func() any{
	TypeHello:         func() any { return new(Hello) },
	TypeWelcome:       func() any { return new(Welcome) },
	TypeReject:        func() any { return new(Reject) },
	TypeRequest:       func() any { return new(Request) },
	TypeResponse:      func() any { return new(Response) },
	TypeProgress:      func() any { return new(Progress) },
	TypeChunk:         func() any { return new(Chunk) },
	TypeCancel:        func() any { return new(Cancel) },
	TypeEvent:         func() any { return new(Event) },
	TypePing:          func() any { return new(Ping) },
	TypePong:          func() any { return new(Pong) },
	TypeError:         func() any { return new(ErrorNotice) },
	TypeGoodbye:       func() any { return new(Goodbye) },
	TypeClientHello:   func() any { return new(ClientHello) },
	TypeClientWelcome: func() any { return new(ClientWelcome) },
	TypeSessionEvent:  func() any { return new(SessionEvent) },
	TypeWatch:         func() any { return new(Watch) },
	TypeUnwatch:       func() any { return new(Unwatch) },
	TypeHostTransfer:  func() any { return new(HostTransfer) },
	TypeAttach:        func() any { return new(Attach) },
	TypePair:          func() any { return new(Pair) },
	TypeAttached:      func() any { return new(Attached) },
	TypeDetach:        func() any { return new(Detach) },
	TypeAck:           func() any { return new(Ack) },
	TypeReplaced:      func() any { return new(Replaced) },
}

func deref(p any) Message {
	switch m := p.(type) {
	case *Hello:
		return *m
	case *Welcome:
		return *m
	case *Reject:
		return *m
	case *Request:
		return *m
	case *Response:
		return *m
	case *Progress:
		return *m
	case *Chunk:
		return *m
	case *Cancel:
		return *m
	case *Event:
		return *m
	case *Ping:
		return *m
	case *Pong:
		return *m
	case *ErrorNotice:
		return *m
	case *Goodbye:
		return *m
	case *ClientHello:
		return *m
	case *ClientWelcome:
		return *m
	case *ClientChallenge:
		return *m
	case *ClientProof:
		return *m
	case *SessionEvent:
		return *m
	case *Watch:
		return *m
	case *Unwatch:
		return *m
	case *HostTransfer:
		return *m
	case *Attach:
		return *m
	case *Pair:
		return *m
	case *Attached:
		return *m
	case *Detach:
		return *m
	case *Ack:
		return *m
	case *Replaced:
		return *m
	}
	panic(fmt.Sprintf("protocol: registry type %T has no deref case", p))
}

// validate checks the fields without which a message cannot be acted on.
func validate(m Message) error {
	switch m := m.(type) {
	case Request:
		if m.ID == "" || m.Action == "" {
			return malformed(`request needs "id" and "action"`)
		}
		if m.Chunks < 0 {
			return malformed(`request "chunks" must not be negative`)
		}
	case Response:
		if m.ID == "" {
			return malformed(`response needs "id"`)
		}
		if !m.OK && m.Error == nil {
			return malformed(`response with "ok": false needs "error"`)
		}
		if m.Chunks < 0 {
			return malformed(`response "chunks" must not be negative`)
		}
	case Progress:
		return needs("progress", "id", m.ID)
	case Chunk:
		if m.ID == "" || m.Seq < 0 {
			return malformed(`chunk needs "id" and a non-negative "seq"`)
		}
	case Cancel:
		return needs("cancel", "id", m.ID)
	case Event:
		return needs("event", "event", m.Event)
	case SessionEvent:
		return needs("session-event", "kind", m.Kind, "session.sessionId", m.Session.SessionID)
	case Watch:
		return needs("watch", "sessionId", m.SessionID)
	case Unwatch:
		return needs("unwatch", "sessionId", m.SessionID)
	case Attach:
		if m.Ref == "" || len(m.Ref) > MaxAttachRefBytes {
			return malformed(`attach needs a "ref" of 1-64 bytes`)
		}
	case Attached:
		return needs("attached", "ref", m.Ref, "sessionId", m.SessionID)
	case Detach:
		return needs("detach", "sessionId", m.SessionID)
	case Ack:
		return needs("ack", "sessionId", m.SessionID, "id", m.ID)
	}
	return nil
}

// needs is the error for a frame of type typ that lacks one of its required
// string fields, given as name, value pairs; nil when every one is set.
func needs(typ string, fields ...string) error {
	var names []string
	missing := false
	for i := 0; i+1 < len(fields); i += 2 {
		names = append(names, strconv.Quote(fields[i]))
		missing = missing || fields[i+1] == ""
	}
	if !missing {
		return nil
	}
	return malformed("%s needs %s", typ, strings.Join(names, " and "))
}

func malformed(format string, args ...any) *Error {
	return &Error{Code: CodeMalformedFrame, Message: clip(fmt.Sprintf(format, args...))}
}

// jsonReason shortens encoding/json errors to what a peer can act on.
func jsonReason(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// clip keeps peer-controlled text in messages and logs short.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	n := max
	for n > max-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n-- // do not cut a UTF-8 sequence in half
	}
	return s[:n] + "…"
}
