package sourcemap

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchMap is a 5,000-script place: 50 folders of 100 modules under
// ReplicatedStorage.Shared, each a file under src/shared.
func benchMap(b testing.TB) *Map {
	b.Helper()
	shared := &Node{Name: "Shared", ClassName: "Folder"}
	for f := 0; f < 50; f++ {
		folder := &Node{Name: fmt.Sprintf("Feature%02d", f), ClassName: "Folder"}
		for s := 0; s < 100; s++ {
			folder.Children = append(folder.Children, &Node{
				Name: fmt.Sprintf("Module%03d", s), ClassName: "ModuleScript",
				FilePaths: []string{fmt.Sprintf("src/shared/Feature%02d/Module%03d.luau", f, s), fmt.Sprintf("src/shared/Feature%02d/Module%03d.meta.json", f, s)},
			})
		}
		shared.Children = append(shared.Children, folder)
	}
	root := &Node{Name: "Bench", ClassName: "DataModel", Children: []*Node{{Name: "ReplicatedStorage", ClassName: "ReplicatedStorage", Children: []*Node{shared}}}}
	data, err := json.Marshal(root)
	if err != nil {
		b.Fatal(err)
	}
	m, err := ParseMap(data, ".")
	if err != nil {
		b.Fatal(err)
	}
	if m.Len() != 5000 {
		b.Fatalf("map has %d entries", m.Len())
	}
	return m
}

// benchLog is a 10,000-line Output log, traceback-heavy: of every 10 lines,
// an error with its location, Studio's Stack Begin/End with two stack lines,
// three debug.traceback frames, and two plain prints; a quarter of the
// locations name instances outside the map.
func benchLog() string {
	var b strings.Builder
	path := func(i int) string {
		if i%4 == 3 {
			return fmt.Sprintf("Workspace.Unmapped%d.Script", i%97)
		}
		return fmt.Sprintf("ReplicatedStorage.Shared.Feature%02d.Module%03d", i%50, (i*7)%100)
	}
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "%s:%d: attempt to index nil with 'field'\n", path(i), i%300+1)
		b.WriteString("Stack Begin\n")
		fmt.Fprintf(&b, "Script '%s', Line %d - function run\n", path(i+1), i%200+1)
		fmt.Fprintf(&b, "Script '%s', Line %d\n", path(i+2), i%100+1)
		b.WriteString("Stack End\n")
		fmt.Fprintf(&b, "%s:%d function step\n", path(i+3), i%50+1)
		fmt.Fprintf(&b, "%s:%d\n", path(i+4), i%40+1)
		fmt.Fprintf(&b, "scripts/run.luau:%d\n", i%9+1)
		fmt.Fprintf(&b, "loaded %d items in 12:30:45 at 127.0.0.1:38741\n", i)
		b.WriteString("hello from the server\n")
	}
	return b.String()
}

// BenchmarkRewriteLog maps a 10,000-line traceback-heavy log through a
// 5,000-entry map, line by line as logs and exec output are (target ≤ 50 ms
// per log; docs/performance.md).
func BenchmarkRewriteLog(b *testing.B) {
	m := benchMap(b)
	lines := strings.Split(strings.TrimSuffix(benchLog(), "\n"), "\n")
	if len(lines) != 10000 {
		b.Fatalf("%d lines", len(lines))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			_ = m.Rewrite(l)
		}
	}
}

// BenchmarkLocateLog is the --json side: every line's locations.
func BenchmarkLocateLog(b *testing.B) {
	m := benchMap(b)
	lines := strings.Split(strings.TrimSuffix(benchLog(), "\n"), "\n")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			_ = m.Locate(l)
		}
	}
}

// BenchmarkLoadMap is parsing and indexing a 5,000-entry map.
func BenchmarkLoadMap(b *testing.B) {
	shared := &Node{Name: "Shared", ClassName: "Folder"}
	for i := 0; i < 5000; i++ {
		shared.Children = append(shared.Children, &Node{Name: fmt.Sprintf("M%d", i), ClassName: "ModuleScript", FilePaths: []string{fmt.Sprintf("src/M%d.luau", i)}})
	}
	data, _ := json.Marshal(&Node{Name: "B", ClassName: "DataModel", Children: []*Node{shared}})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseMap(data, "."); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchLogMaps checks the benchmark measures real work: its log's
// locations are found and most are mapped.
func TestBenchLogMaps(t *testing.T) {
	m := benchMap(t)
	rewritten, located, mapped := 0, 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(benchLog(), "\n"), "\n") {
		if m.Rewrite(l) != l {
			rewritten++
		}
		for _, loc := range m.Locate(l) {
			located++
			if loc.File != "" {
				mapped++
			}
		}
	}
	// per 10 lines: 5 DataModel locations (3 or 4 of them mapped) and a file chunk
	if located != 6000 || mapped < 4000 || rewritten < 3500 {
		t.Fatalf("located %d, mapped %d, rewritten %d lines", located, mapped, rewritten)
	}
}
