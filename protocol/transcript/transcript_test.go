package transcript

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// Dir is where the recorded conversations live, from this package.
const dir = "../testdata/transcripts"

// TestPayloadsMatchTheContract checks every recorded request and result
// against the types of package actions: a field renamed, added or dropped
// on either side breaks it.
func TestPayloadsMatchTheContract(t *testing.T) {
	all, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range all {
		t.Run(tr.Name, func(t *testing.T) {
			if tr.Settings["token"] == "" {
				t.Error("no token: setting (the pairing token both sides derive the key from)")
			}
			xs, err := tr.Exchanges()
			if err != nil {
				t.Fatal(err)
			}
			if len(xs) == 0 {
				t.Fatal("no request in the transcript")
			}
			for _, x := range xs {
				if x.Request.Action == "" {
					t.Errorf("request %s has no action", x.Request.ID)
				}
				if !x.OK && x.Error == nil {
					t.Errorf("request %s (%s) was never answered", x.Request.ID, x.Request.Action)
				}
				if err := x.CheckPayloads(); err != nil {
					t.Errorf("request %s: %v", x.Request.ID, err)
				}
			}
		})
	}
}

// TestCapabilitiesAreTheContract: the plugin advertises (derived from its
// handler table, plugin/src/Main.luau) exactly the actions package actions
// names, so a Go action the plugin lacks, or a Luau handler the contract
// does not describe, fails here.
func TestCapabilitiesAreTheContract(t *testing.T) {
	all, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(actions.All)
	slices.Sort(want)
	for _, tr := range all {
		for _, f := range tr.Frames(Plugin) {
			if f.Type != "attach" {
				continue
			}
			var a struct {
				Capabilities []string `json:"capabilities"`
			}
			if err := json.Unmarshal(f.Raw, &a); err != nil {
				t.Fatalf("%s:%d: %v", tr.Name, f.Line, err)
			}
			if !slices.Equal(a.Capabilities, want) {
				t.Errorf("%s:%d: the plugin advertises %v; protocol/actions names %v", tr.Name, f.Line, a.Capabilities, want)
			}
		}
	}
}

// TestCoverage: the transcripts cover the conversations the contract
// promises to pin.
func TestCoverage(t *testing.T) {
	all, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tr := range all {
		for _, f := range tr.Frames(Plugin) {
			seen["plugin "+f.Type] = true
		}
		for _, f := range tr.Frames(Host) {
			seen["host "+f.Type] = true
		}
		xs, err := tr.Exchanges()
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Frames(Lost)) > 0 {
			seen["a dropped socket"] = true
		}
		for _, x := range xs {
			if x.Cancelled {
				seen["a cancel"] = true
			}
			if len(x.Events) > 0 {
				seen["log events"] = true
			}
			switch {
			case len(x.Chunks) > 0:
				seen["chunked reply"] = true
			case x.Error != nil:
				seen["error "+string(x.Error.Code)] = true
			case x.Request.Action == actions.Exec && strings.Contains(string(x.Payload), `"success":false`):
				seen["exec script error"] = true
			}
			seen["action "+x.Request.Action] = true
		}
	}
	for _, want := range []string{"plugin hello", "host welcome", "plugin pair", "plugin attach", "host attached",
		"action exec", "exec script error", "action state", "action query", "chunked reply", "error UNKNOWN_ACTION",
		"a cancel", "error CANCELLED", "host error", "action subscribe", "action unsubscribe", "log events",
		"action scriptRead", "action scriptEdit", "error NO_MATCH", "error SCRIPT_CHANGED", "a dropped socket"} {
		if !seen[want] {
			t.Errorf("no transcript covers %s", want)
		}
	}
}

func TestParse(t *testing.T) {
	good := "About.\ntoken: abc\n-- plugin --\n{\"type\":\"hello\"}\n\n# a note\n-- host --\n{\"type\":\"welcome\",\"n\":1}\n"
	tr, err := Parse("good", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Settings["token"] != "abc" || len(tr.Steps) != 2 || tr.Steps[0].From != Plugin || tr.Steps[1].Frames[0].Type != "welcome" || tr.Steps[1].Frames[0].Line != 8 {
		t.Errorf("parsed %+v", tr)
	}
	for _, tt := range []struct{ name, text, want string }{
		{"no sections", "just text\n", "no sections"},
		{"unknown side", "-- client --\n{\"type\":\"x\"}\n", `section "client"`},
		{"bad JSON", "-- host --\n{nope}\n", "b:2: not one JSON frame"},
		{"two values", "-- host --\n{\"type\":\"a\"} {\"type\":\"b\"}\n", "more than one JSON value"},
		{"no type", "-- host --\n{\"id\":\"1\"}\n", `no "type"`},
		{"empty section", "-- host --\n-- plugin --\n{\"type\":\"a\"}\n", "empty host section"},
		{"too large", strings.Repeat("x", MaxBytes+1), "at most"},
	} {
		if _, err := Parse("b", []byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestExchangesLostCancelEvents pins how an exchange reads a dropped
// socket's frames (not the host's), a cancel and the events sent while a
// request ran.
func TestExchangesLostCancelEvents(t *testing.T) {
	text := `token: x
-- host --
{"type":"request","id":"1","action":"exec","sessionId":"s","payload":{"script":"x"}}
-- plugin --
{"type":"ack","sessionId":"s","id":"1"}
{"type":"event","sessionId":"s","event":"log","seq":1,"payload":{"level":"Print","body":"a"}}
-- host --
{"type":"cancel","sessionId":"s","id":"1"}
{"type":"request","id":"2","action":"screenshot","sessionId":"s","payload":{}}
-- lost --
{"type":"chunk","sessionId":"s","id":"2","seq":0,"data":"{}"}
{"type":"response","sessionId":"s","id":"2","chunks":1,"ok":true}
-- plugin --
{"type":"response","sessionId":"s","id":"1","ok":false,"error":{"code":"CANCELLED","message":"exec cancelled"}}
{"type":"chunk","sessionId":"s","id":"2","seq":0,"data":"{\"a\":1}"}
{"type":"response","sessionId":"s","id":"2","chunks":1,"ok":true}
`
	tr, err := Parse("x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	xs, err := tr.Exchanges()
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 2 || !xs[0].Cancelled || len(xs[0].Events) != 1 || xs[1].Cancelled || len(xs[1].Events) != 0 {
		t.Fatalf("exchanges %+v", xs)
	}
	if len(xs[1].Chunks) != 1 || string(xs[1].Payload) != `{"a":1}` {
		t.Errorf("the lost chunk counted: chunks %q, payload %s", xs[1].Chunks, xs[1].Payload)
	}
	if len(tr.Frames(Lost)) != 2 {
		t.Errorf("lost frames %d, want 2", len(tr.Frames(Lost)))
	}
}

func TestEqual(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want string // "" for equal
	}{
		{`{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1.0}`, ""},
		{`{"a":1}`, `{"a":2}`, "$.a: want 1, got 2"},
		{`{"a":1}`, `{}`, "$.a: missing"},
		{`{}`, `{"z":"x"}`, "$.z: not expected"},
		{`[1,2]`, `[1]`, "want 2 elements"},
		{`{"a":{"b":"x"}}`, `{"a":{"b":"y"}}`, `$.a.b: want "x", got "y"`},
		{`{"a":[]}`, `{"a":{}}`, "want an array"},
	} {
		err := Equal([]byte(tt.a), []byte(tt.b))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s vs %s: %v", tt.a, tt.b, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s vs %s: error %v, want %q", tt.a, tt.b, err, tt.want)
		}
	}
}

func TestRoundTripRefusesUnknownAndMissingFields(t *testing.T) {
	if err := RoundTrip([]byte(`{"state":"Edit","placeName":"P","placeId":1,"gameId":2}`), &actions.StateResult{}); err != nil {
		t.Errorf("a good state result: %v", err)
	}
	if err := RoundTrip([]byte(`{"state":"Edit","placeTitle":"P","placeId":1,"gameId":2}`), &actions.StateResult{}); err == nil {
		t.Error("an unknown field passed")
	}
	if err := RoundTrip([]byte(`{"state":"Edit","placeId":1,"gameId":2}`), &actions.StateResult{}); err == nil {
		t.Error("a missing field passed")
	}
}
