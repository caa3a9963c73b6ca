package commands

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

func TestScriptEditRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args ScriptEditArgs
		want string // the payload's JSON, or "error: <part of the message>"
	}{
		{"find and replace with a hash", ScriptEditArgs{Path: "S.M", Find: "a", Replace: "b", ExpectHash: "h"},
			`{"edits":[{"path":"S.M","find":"a","replace":"b"}],"expectHashes":{"S.M":"h"}}`},
		{"delete", ScriptEditArgs{Path: "S.M", Find: "a", Delete: true}, `{"edits":[{"path":"S.M","find":"a","replace":""}]}`},
		{"a forgotten replace", ScriptEditArgs{Path: "S.M", Find: "a"}, "error: --replace NEW"},
		{"lines", ScriptEditArgs{Path: "S.M", Lines: "2-3", With: "x\n"}, `{"edits":[{"path":"S.M","lines":"2-3","with":"x\n"}]}`},
		{"whole source", ScriptEditArgs{Path: "S.M", Source: "y"}, `{"edits":[{"path":"S.M","source":"y"}]}`},
		{"create", ScriptEditArgs{Path: "S.N", Create: true, ClassName: "Script", RunContext: "Client", Source: "z"},
			`{"edits":[{"path":"S.N","source":"z","create":true,"className":"Script","runContext":"Client"}]}`},
		{"create without a class", ScriptEditArgs{Path: "S.N", Create: true}, "error: --class"},
		{"run context of a module", ScriptEditArgs{Path: "S.N", Create: true, ClassName: "ModuleScript", RunContext: "Client"}, "error: --class Script only"},
		{"two kinds at once", ScriptEditArgs{Path: "S.M", Find: "a", Replace: "b", Source: "y"}, "error: exactly one"},
		{"no edit", ScriptEditArgs{Path: "S.M"}, "error: exactly one"},
		{"no path", ScriptEditArgs{Find: "a", Replace: "b"}, "error: needs the script's path"},
		{"--with without --lines", ScriptEditArgs{Path: "S.M", With: "x"}, "error: --with goes with --lines"},
		{"a batch", ScriptEditArgs{Edits: []actions.ScriptEditOp{{Path: "A", Source: new(string)}}, ExpectHashes: map[string]string{"A": "h"}},
			`{"edits":[{"path":"A","source":""}],"expectHashes":{"A":"h"}}`},
		{"a batch and a single edit", ScriptEditArgs{Path: "S.M", Edits: []actions.ScriptEditOp{{Path: "A"}}}, "error: not both"},
		{"a batch edit without a path", ScriptEditArgs{Edits: []actions.ScriptEditOp{{Source: new(string)}}}, "error: edit 1 of the batch has no path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := tt.args.request()
			if strings.HasPrefix(tt.want, "error: ") {
				if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "error: ")) {
					t.Fatalf("error %v, want one saying %q", err, strings.TrimPrefix(tt.want, "error: "))
				}
				if _, ok := err.(UsageError); !ok {
					t.Fatalf("%T is not a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(req)
			if string(got) != tt.want {
				t.Fatalf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPrepareScriptEditBatch(t *testing.T) {
	t.Parallel()
	args := &ScriptEditArgs{Batch: "-"}
	in := `{"edits": [{"path": "A", "find": "x", "replace": "y"}], "expectHashes": {"A": "h"}}`
	if err := prepareScriptEdit(args, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if len(args.Edits) != 1 || *args.Edits[0].Find != "x" || args.ExpectHashes["A"] != "h" {
		t.Fatalf("%+v", args)
	}
	args = &ScriptEditArgs{Batch: "-"}
	if err := prepareScriptEdit(args, strings.NewReader(`{"edit": []}`)); err == nil || !strings.Contains(err.Error(), "not a batch") {
		t.Fatalf("a misspelt batch: %v", err)
	}
	args = &ScriptEditArgs{With: "-", Source: "-"}
	if err := prepareScriptEdit(args, strings.NewReader("x")); err == nil || !strings.Contains(err.Error(), "cannot both read standard input") {
		t.Fatalf("two readers of stdin: %v", err)
	}
}

func TestScriptReadFit(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("0123456789abcdefghij\n", 100) // 100 lines and an empty 101st
	d := ScriptReadData{ScriptReadResult: actions.ScriptReadResult{Path: "game.S", ClassName: "Script", Hash: "h", LineCount: 101, Source: &src}}
	cut := d.Fit(1200).(ScriptReadData)
	raw, _ := json.Marshal(cut)
	if len(raw) > 1200 || cut.Source != nil || cut.FirstLine != 1 || len(cut.Lines) == 0 {
		t.Fatalf("%d bytes, %+v", len(raw), cut)
	}
	if want := "-101"; !strings.HasSuffix(cut.NextLines, want) || cut.NextLines != itoa(len(cut.Lines)+1)+want {
		t.Fatalf("nextLines %q after %d lines", cut.NextLines, len(cut.Lines))
	}
	if d.Source == nil {
		t.Fatal("Fit changed its receiver")
	}
	// a range keeps its numbering
	part := ScriptReadData{ScriptReadResult: actions.ScriptReadResult{Path: "game.S", LineCount: 101, FirstLine: 50, Lines: strings.Split(strings.Repeat("x\n", 40), "\n")[:40]}}
	if cut := part.Fit(200).(ScriptReadData); cut.FirstLine != 50 || cut.NextLines != itoa(50+len(cut.Lines))+"-89" {
		t.Fatalf("%+v", cut)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestRenderScriptGrepAndRead(t *testing.T) {
	t.Parallel()
	g := ScriptGrepData{Matches: []actions.ScriptGrepMatch{
		{Path: "game.A", Line: 3, Column: 5, Text: "hit", Before: []string{"b1", "b2"}, After: []string{"a1"}},
		{Path: "game.B", Line: 1, Column: 1, Text: "hit2"},
	}}
	want := "game.A-1- b1\ngame.A-2- b2\ngame.A:3:5: hit\ngame.A-4- a1\n--\ngame.B:1:1: hit2\n"
	if got := renderScriptGrep(g); got != want {
		t.Fatalf("grep:\n%s\nwant\n%s", got, want)
	}
	src := "a\nb\n"
	r := ScriptReadData{ScriptReadResult: actions.ScriptReadResult{LineCount: 12, Source: &src}}
	if got := renderScriptRead(r); got != " 1  a\n 2  b\n" {
		t.Fatalf("read: %q", got)
	}
	note := scriptGrepNote(ScriptGrepData{Matches: g.Matches, Scripts: 2, NextCursor: "g1:2:1:game.it's"})
	if !strings.Contains(note, `--cursor 'g1:2:1:game.it'\''s'`) {
		t.Fatalf("note %q", note)
	}
}
