package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecode feeds arbitrary bytes to Decode. Decode must never panic; its
// errors are short *Error values with a frame-level code; whatever it
// accepts must encode (type first) and decode again to an equal message.
// Seeds: testdata/fuzz/FuzzDecode plus the encoding of every sample.
func FuzzDecode(f *testing.F) {
	for _, m := range samples {
		data, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			if m != nil {
				t.Fatalf("Decode returned %#v with error %v", m, err)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Decode error %T %v is not a *Error", err, err)
			}
			if perr.Code != CodeMalformedFrame && perr.Code != CodeUnknownMessage {
				t.Fatalf("Decode error code %s", perr.Code)
			}
			if perr.Message == "" || len(perr.Message) > 1024 {
				t.Fatalf("Decode error message of %d bytes", len(perr.Message))
			}
			return
		}
		if _, ok := registry[m.Type()]; !ok {
			t.Fatalf("Decode returned unregistered type %q", m.Type())
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)) failed: %v", data, err)
		}
		if keys := topLevelKeys(t, enc); keys[0] != "type" || count(keys, "type") != 1 {
			t.Fatalf("Encode keys %v: want \"type\" first and once", keys)
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(m)) failed: %v\ninput:   %q\nencoded: %q", err, data, enc)
		}
		if !equalMessages(m, m2) {
			t.Fatalf("round trip changed the message\n first: %#v\nsecond: %#v\nencoded: %q", m, m2, enc)
		}
		// Once encoded, the encoding is a fixed point.
		enc2, err := Encode(m2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable\n first: %q\nsecond: %q", enc, enc2)
		}
	})
}

// equalMessages compares two messages by meaning: raw JSON payloads are
// compared after compaction (the encoder compacts and HTML-escapes them), an
// absent payload equals null (Progress always writes its payload, so an
// absent one comes back as null), and times compare as instants with the
// same UTC offset (each decode makes a new fixed-zone *time.Location).
func equalMessages(a, b Message) bool {
	return reflect.DeepEqual(normalize(a), normalize(b))
}

func normalize(m Message) Message {
	raw := func(r json.RawMessage) json.RawMessage {
		if r == nil {
			return json.RawMessage("null")
		}
		out, err := json.Marshal(r)
		if err != nil {
			return append(json.RawMessage("INVALID:"), r...)
		}
		return out
	}
	session := func(s SessionInfo) SessionInfo {
		_, off := s.ConnectedAt.Zone()
		s.ConnectedAt = s.ConnectedAt.UTC().Add(time.Duration(off) * time.Second)
		return s
	}
	switch m := m.(type) {
	case Request:
		m.Payload = raw(m.Payload)
		return m
	case Response:
		m.Payload = raw(m.Payload)
		if m.Error != nil {
			e := *m.Error
			e.Details = raw(e.Details)
			m.Error = &e
		}
		return m
	case Progress:
		m.Payload = raw(m.Payload)
		return m
	case Event:
		m.Payload = raw(m.Payload)
		return m
	case SessionEvent:
		m.Session = session(m.Session)
		return m
	case ClientWelcome:
		if m.Sessions != nil {
			s := make([]SessionInfo, len(m.Sessions))
			for i := range m.Sessions {
				s[i] = session(m.Sessions[i])
			}
			m.Sessions = s
		}
		return m
	}
	return m
}

// FuzzAssembler checks Split + Assembler on arbitrary bytes. Split must
// terminate, keep pieces within size and rejoin to its input whatever the
// bytes; it never splits a rune of valid UTF-8. For a valid JSON text (the
// input itself when it is one, else the input encoded as a JSON string),
// every piece must survive a trip through a chunk frame and the pieces must
// reassemble to exactly the payload.
func FuzzAssembler(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,3]}`), 5)
	f.Add([]byte("\"é🎮€\""), 6)
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, 0)
	f.Fuzz(func(t *testing.T, data []byte, sizeSeed int) {
		size := 5 + int(uint(sizeSeed)%1024)

		var joined []byte
		for i, p := range Split(data, size) {
			if len(p) == 0 || len(p) > size {
				t.Fatalf("Split(size %d) piece %d has %d bytes", size, i, len(p))
			}
			if utf8.Valid(data) && !utf8.ValidString(p) {
				t.Fatalf("Split(size %d) cut a rune: piece %d = %q", size, i, p)
			}
			joined = append(joined, p...)
		}
		if !bytes.Equal(joined, data) {
			t.Fatalf("Split(size %d) pieces do not rejoin", size)
		}

		payload := data
		if !json.Valid(data) || !utf8.Valid(data) {
			var err error
			if payload, err = json.Marshal(string(data)); err != nil {
				t.Fatal(err)
			}
		}
		pieces := chunkRoundTrip(t, "fuzz", payload, size, len(payload))

		// One byte less of room must be refused, never truncated.
		small := NewAssembler(len(payload) - 1)
		var addErr error
		for i, p := range pieces {
			if addErr = small.Add(Chunk{ID: "fuzz", Seq: i, Data: p}); addErr != nil {
				break
			}
		}
		if CodeOf(addErr) != CodePayloadTooLarge {
			t.Fatalf("assembler with limit %d accepted %d bytes (err %v)", len(payload)-1, len(payload), addErr)
		}
	})
}

// FuzzAssemblerHostile drives an Assembler with what a broken or hostile
// plugin could send: chunks with any sequence numbers and data, then a
// response announcing any count. It must never panic or hold more than its
// limit; out-of-order chunks, a wrong count and invalid JSON are errors with
// frame-level codes; and whatever Finish returns is exactly the accepted
// chunks, joined, and valid JSON.
func FuzzAssemblerHostile(f *testing.F) {
	f.Add([]byte("\x00{\"a\"\x01:1}"), 64, 2)
	f.Add([]byte("\x00[1,\x00\x002]"), 8, 3)
	f.Add([]byte("\x05xx\x00yy"), 3, 1)
	f.Add([]byte("\x00\"é\x00🎮\""), 1, 2)
	f.Fuzz(func(t *testing.T, script []byte, limit, announced int) {
		limit = int(uint(limit) % 4096)
		a := NewAssembler(limit)
		var accepted []byte
		next := 0
		// The script is a list of chunks: one byte of sequence number, then
		// data up to the next byte below 0x02.
		for len(script) > 0 {
			seq := int(script[0]) - 1 // 0x00 → -1, 0x01 → 0, …
			script = script[1:]
			end := bytes.IndexFunc(script, func(r rune) bool { return r < 2 })
			if end < 0 {
				end = len(script)
			}
			data := string(script[:end])
			script = script[end:]
			if seq < 0 {
				seq = next // 0x00 means "the right one"
			}
			err := a.Add(Chunk{ID: "fuzz", Seq: seq, Data: data})
			switch {
			case seq != next:
				if CodeOf(err) != CodeMalformedFrame {
					t.Fatalf("chunk %d when %d was due: %v", seq, next, err)
				}
			case len(accepted)+len(data) > limit:
				if CodeOf(err) != CodePayloadTooLarge {
					t.Fatalf("%d bytes over a limit of %d accepted: %v", len(accepted)+len(data), limit, err)
				}
			default:
				if err != nil {
					t.Fatalf("in-order chunk within the limit refused: %v", err)
				}
				accepted = append(accepted, data...)
				next++
			}
		}
		got, err := a.Finish(announced)
		switch {
		case announced != next:
			if err == nil || CodeOf(err) != CodeMalformedFrame {
				t.Fatalf("Finish(%d) after %d chunks: %v", announced, next, err)
			}
		case !json.Valid(accepted):
			if err == nil || CodeOf(err) != CodeMalformedFrame {
				t.Fatalf("Finish accepted invalid JSON %q: %v", accepted, err)
			}
		default:
			if err != nil || !bytes.Equal(got, accepted) {
				t.Fatalf("Finish = %q, %v; want %q", got, err, accepted)
			}
		}
	})
}

// FuzzValidateHello runs the hello checks on whatever Decode makes of
// arbitrary bytes, as the host does with a plugin's or client's first frame.
// They must never panic; a refusal carries a reject code and a short
// message; an accepted hello names a supported version and a known context.
func FuzzValidateHello(f *testing.F) {
	for _, m := range samples {
		if m.Type() == TypeHello || m.Type() == TypeClientHello {
			data, _ := Encode(m)
			f.Add(data)
		}
	}
	f.Add([]byte(`{"type":"hello","protocolVersions":[1],"instanceId":"a","context":"server","state":"Nope"}`))
	f.Add([]byte(`{"type":"client-hello","protocolVersions":[0,1,2]}`))
	f.Add([]byte(`{"type":"client-hello","protocolVersions":[2,1],"clientVersion":"1","token":"` + strings.Repeat("t", MaxTokenBytes+1) + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		var v int
		var perr *Error
		switch h := m.(type) {
		case Hello:
			// A hello carries no session fields (they come with attach).
			if v, perr = ValidateHello(h); perr == nil {
				if !validInstanceID(h.InstanceID) {
					t.Fatalf("accepted instanceId %q", h.InstanceID)
				}
			}
		case ClientHello:
			if v, perr = ValidateClientHello(h); perr == nil && len(h.Token) > MaxTokenBytes {
				t.Fatalf("accepted a %d-byte token", len(h.Token))
			}
		default:
			return
		}
		if perr != nil {
			if perr.Code != CodeUnsupportedProtocol && perr.Code != CodeInvalidHello && perr.Code != CodeUnauthorized {
				t.Fatalf("hello refused with code %s", perr.Code)
			}
			if perr.Message == "" || len(perr.Message) > 1024 {
				t.Fatalf("refusal message of %d bytes", len(perr.Message))
			}
			return
		}
		supported := SupportedVersions
		if _, ok := m.(Hello); ok {
			supported = PluginSupportedVersions
		}
		if !slices.Contains(supported, v) {
			t.Fatalf("negotiated version %d, supported %v", v, supported)
		}
	})
}
