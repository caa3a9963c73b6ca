package sourcemap

import (
	"reflect"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	type L = Loc
	tests := []struct {
		name, line string
		want       []Loc
	}{
		{"error prefix", "ServerScriptService.Main:27: attempt to index nil with 'field'",
			[]L{{Path: "ServerScriptService.Main", Line: 27, Start: 0, End: 27, Kind: KindPrefix}}},
		{"nested prefixes", "script error: ReplicatedStorage.Shared.Inner:5: attempt to index nil",
			[]L{{Path: "ReplicatedStorage.Shared.Inner", Line: 5, Start: 14, End: 46, Kind: KindPrefix}}},
		{"traceback frame with function", "ReplicatedStorage.Shared.Outer:7 function run",
			[]L{{Path: "ReplicatedStorage.Shared.Outer", Line: 7, Start: 0, End: 32, Kind: KindFrame}}},
		{"traceback frame alone", "scripts/nested.luau:2",
			[]L{{Path: "scripts/nested.luau", Line: 2, Start: 0, End: 21, Kind: KindFrame}}},
		{"indented frame", "  Workspace.Script:3",
			[]L{{Path: "Workspace.Script", Line: 3, Start: 2, End: 20, Kind: KindFrame}}},
		{"studio stack line", "Script 'ServerScriptService.Server.Main', Line 27 - function boot",
			[]L{{Path: "ServerScriptService.Server.Main", Line: 27, Start: 0, End: 49, Kind: KindStudio}}},
		{"studio stack line with spaces in a name", "Script 'Workspace.My Model.Script', Line 4",
			[]L{{Path: "Workspace.My Model.Script", Line: 4, Start: 0, End: 42, Kind: KindStudio}}},
		{"studio output source suffix", "boom  - Server - Main:27",
			[]L{{Path: "Main", Line: 27, Start: 17, End: 24, Kind: KindFrame}}},
		{"two locations on a line", "A.B:1: require failed: C.D:2: boom",
			[]L{{Path: "A.B", Line: 1, Start: 0, End: 5, Kind: KindPrefix}, {Path: "C.D", Line: 2, Start: 23, End: 28, Kind: KindPrefix}}},
		{"loadstring chunk", `[string "print(x"]:1: Expected ')'`,
			[]L{{Path: `[string "print(x"]`, Line: 1, Start: 0, End: 20, Kind: KindPrefix}}},
		{"windows path", `C:\proj\run.luau:9: boom`,
			[]L{{Path: `C:\proj\run.luau`, Line: 9, Start: 0, End: 18, Kind: KindPrefix}}},
		{"frame after at", "error at Workspace.Thing:12",
			[]L{{Path: "Workspace.Thing", Line: 12, Start: 9, End: 27, Kind: KindFrame}}},
		{"time of day", "12:30:45 server started", nil},
		{"ip and port", "listening on 127.0.0.1:38741", nil},
		{"url", "see http://localhost:8080/x", nil},
		{"frame mid sentence is not one", "ratio was A:2 today", nil},
		{"line zero", "A.B:0: nothing", nil},
		{"ten digit line", "A.B:1234567890: too long", nil},
		{"no number", "Warning: something", nil},
		{"studio without line", "Script 'A.B' did a thing", nil},
		{"studio glued to a word", "MyScript 'A.B', Line 3", nil},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Scan(tc.line)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Scan(%q)\n got %+v\nwant %+v", tc.line, got, tc.want)
			}
			for _, l := range got {
				if l.Start < 0 || l.End > len(tc.line) || l.Start >= l.End {
					t.Fatalf("bad span %+v", l)
				}
			}
		})
	}
}

// FuzzScan: any input scans without panicking, every location's span lies
// inside the line in order, and holds its path and line.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"ServerScriptService.Main:27: boom", "Script 'A.B', Line 3 - function f", "A:1 function g",
		`[string "x"]:1: y`, `C:\a\b.luau:2:`, "  - Server - M:1", "Script '", "Script 'a', Line ", "[string \"]:1:",
		"::::1:1:1", "é.ü:3: x", "at A:1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		prev := 0
		for _, l := range Scan(line) {
			if l.Start < prev || l.End > len(line) || l.Start >= l.End {
				t.Fatalf("span %d:%d out of order or range (prev %d, len %d)", l.Start, l.End, prev, len(line))
			}
			if l.Line < 1 || l.Path == "" {
				t.Fatalf("bad location %+v", l)
			}
			span := line[l.Start:l.End]
			if !strings.Contains(span, l.Path) {
				t.Fatalf("span %q does not hold path %q", span, l.Path)
			}
			prev = l.End
		}
		var m *Map
		_ = m.Rewrite(line)
	})
}
