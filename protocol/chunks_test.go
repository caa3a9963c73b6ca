package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAssembler(t *testing.T) {
	type step struct {
		seq  int
		data string
		code Code // expected Add error code, "" for success
	}
	tests := []struct {
		name   string
		limit  int
		chunks []step
		finish int
		want   string // reassembled payload when finishCode is ""
		code   Code   // expected Finish error code
	}{
		{"one chunk", 100, []step{{0, `{"a":1}`, ""}}, 1, `{"a":1}`, ""},
		{"in order", 100, []step{{0, `{"a":`, ""}, {1, `[1,2`, ""}, {2, `]}`, ""}}, 3, `{"a":[1,2]}`, ""},
		{"empty chunk in the middle", 100, []step{{0, `"ab`, ""}, {1, ``, ""}, {2, `c"`, ""}}, 3, `"abc"`, ""},
		{"multi-byte", 100, []step{{0, `"é`, ""}, {1, `🎮"`, ""}}, 2, `"é🎮"`, ""},
		{"exactly at limit", 7, []step{{0, `{"a"`, ""}, {1, `:1}`, ""}}, 2, `{"a":1}`, ""},

		{"starts at 1", 100, []step{{1, `{}`, CodeMalformedFrame}}, 0, "", CodeMalformedFrame},
		{"gap", 100, []step{{0, `[1`, ""}, {2, `]`, CodeMalformedFrame}}, 1, "", CodeMalformedFrame},
		{"swapped", 100, []step{{1, `]`, CodeMalformedFrame}, {0, `[1`, ""}}, 1, "", CodeMalformedFrame},
		{"duplicate", 100, []step{{0, `[1`, ""}, {0, `[1`, CodeMalformedFrame}, {1, `]`, ""}}, 2, `[1]`, ""},
		{"negative seq", 100, []step{{-1, `[]`, CodeMalformedFrame}}, 0, "", CodeMalformedFrame},

		{"over limit first", 3, []step{{0, `"abc"`, CodePayloadTooLarge}}, 0, "", CodeMalformedFrame},
		{"over limit later", 7, []step{{0, `{"a"`, ""}, {1, `:10}`, CodePayloadTooLarge}}, 1, "", CodeMalformedFrame},
		{"zero limit", 0, []step{{0, `1`, CodePayloadTooLarge}}, 0, "", CodeMalformedFrame},

		{"too few announced", 100, []step{{0, `[1`, ""}, {1, `]`, ""}}, 1, "", CodeMalformedFrame},
		{"too many announced", 100, []step{{0, `[1]`, ""}}, 2, "", CodeMalformedFrame},
		{"none arrived", 100, nil, 1, "", CodeMalformedFrame},
		{"zero chunks", 100, nil, 0, "", CodeMalformedFrame}, // "" is not JSON

		{"invalid JSON", 100, []step{{0, `{"a":`, ""}, {1, `1`, ""}}, 2, "", CodeMalformedFrame},
		{"two values", 100, []step{{0, `1`, ""}, {1, ` 2`, ""}}, 2, "", CodeMalformedFrame},
		{"not JSON at all", 100, []step{{0, `iVBORw0KGgo`, ""}}, 1, "", CodeMalformedFrame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAssembler(tt.limit)
			for _, s := range tt.chunks {
				err := a.Add(Chunk{ID: "req-1", Seq: s.seq, Data: s.data})
				if got := CodeOf(err); got != s.code {
					t.Fatalf("Add(seq %d) = %v (code %q), want code %q", s.seq, err, got, s.code)
				}
				if err != nil && !strings.Contains(err.Error(), "req-1") {
					t.Errorf("Add error %q does not name the request", err)
				}
			}
			payload, err := a.Finish(tt.finish)
			if got := CodeOf(err); got != tt.code {
				t.Fatalf("Finish(%d) = %q, %v; want code %q", tt.finish, payload, err, tt.code)
			}
			if tt.code == "" && string(payload) != tt.want {
				t.Fatalf("Finish = %s, want %s", payload, tt.want)
			}
			if tt.code != "" && payload != nil {
				t.Errorf("Finish returned a payload with its error: %q", payload)
			}
		})
	}
}

func TestSplitBasics(t *testing.T) {
	if got := Split(nil, 10); got != nil {
		t.Errorf("Split(nil) = %q, want nil", got)
	}
	if got := Split([]byte(`{}`), MaxChunkBytes); len(got) != 1 || got[0] != `{}` {
		t.Errorf("Split small = %q", got)
	}
	tests := []struct {
		in   string
		size int
		want []string
	}{
		{`"abcdefghij"`, 5, []string{`"abcd`, `efghi`, `j"`}},
		{`"abcd"`, 6, []string{`"abcd"`}},
		{`"éé"`, 5, []string{`"éé`, `"`}},     // 1+2+2 bytes fit exactly
		{`"aéé"`, 5, []string{`"aé`, `é"`}},   // second é would straddle: moved whole
		{`"🎮🎮"`, 5, []string{`"🎮`, `🎮"`}},     // 4-byte runes
		{`"aa🎮"`, 5, []string{`"aa`, `🎮"`}},   // backs up to the lead byte
		{`"€€€€"`, 7, []string{`"€€`, `€€"`}}, // 3-byte runes
		{"\"\u2028\u2029\"", 5, []string{"\"\u2028", "\u2029\""}},
	}
	for _, tt := range tests {
		got := Split([]byte(tt.in), tt.size)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Split(%q, %d) = %q, want %q", tt.in, tt.size, got, tt.want)
		}
	}
}

func TestSplitPanicsOnTinySize(t *testing.T) {
	for _, size := range []int{-1, 0, 1, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Split(size %d) did not panic", size)
				}
			}()
			Split([]byte(`"x"`), size)
		}()
	}
}

// TestSplitNeverSplitsRunes cuts texts of 1- to 4-byte runes at every size
// and checks every piece is valid UTF-8, within size, and that the pieces
// reassemble to the original.
func TestSplitNeverSplitsRunes(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString([]string{"a", "é", "€", "🎮", `\"`, "\u2028"}[i*7%6])
	}
	payload, err := json.Marshal(b.String())
	if err != nil {
		t.Fatal(err)
	}
	for size := 5; size <= 64; size++ {
		pieces := Split(payload, size)
		var joined []byte
		for i, p := range pieces {
			if len(p) == 0 || len(p) > size {
				t.Fatalf("size %d: piece %d has %d bytes", size, i, len(p))
			}
			if !utf8.ValidString(p) {
				t.Fatalf("size %d: piece %d splits a rune: %q", size, i, p)
			}
			joined = append(joined, p...)
		}
		if !bytes.Equal(joined, payload) {
			t.Fatalf("size %d: pieces do not rejoin", size)
		}
	}
}

// TestSplitInvalidUTF8Terminates is a regression test: a run of continuation
// bytes longer than size used to loop forever producing empty pieces.
func TestSplitInvalidUTF8Terminates(t *testing.T) {
	tests := [][]byte{
		bytes.Repeat([]byte{0x80}, 20),
		append([]byte(`"`), bytes.Repeat([]byte{0xBF}, 11)...),
		{0xF0, 0x9F, 0x8E, 0xAE, 0x8E, 0xAE, 0x8E, 0xAE, 0x8E, 0xAE, 0x8E},
	}
	for _, in := range tests {
		pieces := Split(in, 5)
		var joined []byte
		for _, p := range pieces {
			if len(p) == 0 || len(p) > 5 {
				t.Fatalf("Split(%q) piece %q", in, p)
			}
			joined = append(joined, p...)
		}
		if !bytes.Equal(joined, in) {
			t.Fatalf("Split(%q) = %q does not rejoin", in, pieces)
		}
	}
}

func TestSplitAssemblerRoundTrip(t *testing.T) {
	big := strings.Repeat(`{"k":"vålue 🎮 <&> \"q\" \\ \u0001"},`, 10000) // ~0.4 MB: two MaxChunkBytes chunks
	payloads := [][]byte{
		[]byte(`{}`),
		[]byte(`null`),
		[]byte(`{"s":"` + strings.Repeat("a€🎮", 500) + `"}`),
		[]byte(`"` + strings.Repeat("é", 200000) + `"`),
		[]byte(`[` + big + `1]`),
	}
	for _, payload := range payloads {
		sizes := []int{1000, MaxChunkBytes}
		if len(payload) < 10000 {
			sizes = append(sizes, 5, 6, 7)
		}
		for _, size := range sizes {
			chunkRoundTrip(t, "r", payload, size, MaxPayloadBytes)
		}
	}
}

// chunkRoundTrip sends payload as chunks of size, each in its own frame
// through Encode and Decode, into an Assembler that holds limit bytes, and
// checks that Finish gives the payload back; it returns the pieces.
func chunkRoundTrip(t *testing.T, id string, payload []byte, size, limit int) []string {
	t.Helper()
	pieces := Split(payload, size)
	a := NewAssembler(limit)
	for i, p := range pieces {
		frame, err := Encode(Chunk{ID: id, Seq: i, Data: p})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(frame)
		if err != nil {
			t.Fatalf("chunk frame %d does not decode: %v", i, err)
		}
		c, ok := m.(Chunk)
		if !ok || c.Data != p || c.Seq != i {
			t.Fatalf("chunk %d changed on the wire: %.200q -> %.200v", i, p, m)
		}
		if err := a.Add(c); err != nil {
			t.Fatalf("Add chunk %d: %v", i, err)
		}
	}
	got, err := a.Finish(len(pieces))
	if err != nil {
		t.Fatalf("size %d: Finish(%d): %v", size, len(pieces), err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("size %d: reassembled %.200q, want %.200q", size, got, payload)
	}
	return pieces
}

func TestMaxChunkFitsFrame(t *testing.T) {
	// A chunk of MaxChunkBytes of typical JSON (quotes and backslashes
	// doubled by escaping) must fit the plugin frame limit.
	data := strings.Repeat(`\"`, MaxChunkBytes/2)
	frame, err := Encode(Chunk{ID: "0123456789abcdef", Seq: 1 << 20, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if len(frame) > PluginMaxFrameBytes {
		t.Fatalf("worst-case chunk frame is %d bytes, over %d", len(frame), PluginMaxFrameBytes)
	}
}
