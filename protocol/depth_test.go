package protocol

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// refDepth is the nesting depth of valid JSON, measured with the standard
// library's token stream (which does not recurse), or -1 when data is not
// one valid JSON value.
func refDepth(data []byte) int {
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return -1
		}
		switch tok {
		case stdjson.Delim('['), stdjson.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case stdjson.Delim(']'), stdjson.Delim('}'):
			depth--
		}
	}
	if !stdjson.Valid(data) {
		return -1
	}
	return deepest
}

func TestCheckDepth(t *testing.T) {
	deep := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	tests := []struct {
		name  string
		in    string
		limit int
		ok    bool
	}{
		{"flat object", `{"type":"ping","t":1}`, 1, true},
		{"scalar", `42`, 0, true},
		{"at the limit, arrays", deep("[", "]", 8), 8, true},
		{"one past the limit, arrays", deep("[", "]", 9), 8, false},
		{"at the limit, objects", deep(`{"a":`, "}", 8), 8, true},
		{"one past the limit, objects", deep(`{"a":`, "}", 9), 8, false},
		{"mixed", `{"a":[{"b":[{"c":[]}]}]}`, 6, true},
		{"mixed one past", `{"a":[{"b":[{"c":[[]]}]}]}`, 6, false},
		{"many siblings stay shallow", "[" + strings.Repeat("[],", 100) + "[]]", 2, true},
		{"brackets in a string", `{"s":"` + strings.Repeat("[", 100) + `"}`, 1, true},
		{"escaped quote keeps the string open", `{"s":"\"` + strings.Repeat("[", 100) + `"}`, 1, true},
		{"escaped backslash closes the string", `{"s":"\\"` + `,"x":` + deep("[", "]", 3) + `}`, 3, false},
		{"three backslashes and a quote stay in the string", `["\\\"[[[[["]`, 1, true},
		{"key with brackets", `{"[[[[":1,"{{{{":2}`, 1, true},
		{"unterminated string", `["` + strings.Repeat("[", 100), 1, true},
		{"unbalanced closers do not go negative", `]]]]` + deep("[", "]", 3), 2, false},
		{"unclosed deep", strings.Repeat("[", 100), 99, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDepth([]byte(tt.in), tt.limit)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckDepth(%.60q, %d) = %v, want ok=%v", tt.in, tt.limit, err, tt.ok)
			}
			var tooDeep *TooDeepError
			if err != nil && (!errors.As(err, &tooDeep) || tooDeep.Limit != tt.limit) {
				t.Fatalf("error %T %v, want a *TooDeepError with limit %d", err, err, tt.limit)
			}
		})
	}
}

// TestDecodeRefusesDeepNesting: a frame nested past MaxJSONDepth is a
// malformed frame, answered at once; before the bound, 4 MB of "[" overflowed
// the decoder's stack (fatal: it killed the process).
func TestDecodeRefusesDeepNesting(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"4 MB of [", strings.Repeat("[", 4<<20), false},
		{"deep payload in a request", `{"type":"request","id":"1","action":"echo","payload":` + strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth) + `}`, false},
		{"payload at the limit", `{"type":"request","id":"1","action":"echo","payload":` + strings.Repeat("[", MaxJSONDepth-1) + strings.Repeat("]", MaxJSONDepth-1) + `}`, true},
		{"deep hello", `{"type":"hello","capabilities":` + strings.Repeat(`{"a":`, 100000) + `}`, false},
		{"brackets in a long string are data", `{"type":"event","event":"log","payload":"` + strings.Repeat("[{", 1<<20) + `"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.in))
			if tt.ok {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			var perr *Error
			if !errors.As(err, &perr) || perr.Code != CodeMalformedFrame || !strings.Contains(perr.Message, "deeper than") {
				t.Fatalf("Decode = %#v, %v; want MALFORMED_FRAME saying it nests too deeply", m, err)
			}
		})
	}
}

// FuzzCheckDepth compares CheckDepth with the depth the standard library's
// tokenizer measures, for every valid JSON input.
func FuzzCheckDepth(f *testing.F) {
	for _, s := range []string{`[]`, `{"a":[1,{"b":"]"}]}`, `"\\"`, `["\"[["]`, `[[[[[[]]]]]]`, `{"\u005b":[[]]}`} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = int(uint(limit) % 16)
		want := refDepth(data)
		err := CheckDepth(data, limit)
		if want < 0 {
			return // invalid JSON: only "no panic" is promised
		}
		if (err == nil) != (want <= limit) {
			t.Fatalf("CheckDepth(%q, %d) = %v; the JSON nests %d deep", data, limit, err, want)
		}
	})
}

// BenchmarkCheckDepth measures the scan every frame pays before decoding,
// beside the whole Decode: the common frame (few brackets: two vectorised
// counts) and the worst (a large payload full of brackets and strings: the
// full scan).
func BenchmarkCheckDepth(b *testing.B) {
	row := `{"name":"Part","path":"Workspace.Model[1]","size":[1,2,3],"tags":["a\"b","[c]"]},`
	inputs := map[string][]byte{
		"request-1KiB":          []byte(`{"type":"request","id":"7","action":"exec","payload":{"script":"` + strings.Repeat("print(1) ", 110) + `"}}`),
		"log-string-1MiB":       []byte(`{"type":"event","event":"log","payload":"` + strings.Repeat("x", 1<<20) + `"}`),
		"brackets-payload-1MiB": []byte(`{"type":"response","id":"7","ok":true,"payload":[` + strings.Repeat(row, (1<<20)/len(row)) + `{}]}`),
	}
	for name, data := range inputs {
		b.Run("scan/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := CheckDepth(data, MaxJSONDepth); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The whole Decode (scan included), for scale.
		b.Run("decode/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
