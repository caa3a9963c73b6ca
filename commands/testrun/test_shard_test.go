package testrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func specNames(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("ReplicatedStorage.Tests.s%03d.spec", i))
	}
	return out
}

// Slices are disjoint and complete, the same whatever the input order,
// and balanced by duration when timings are known, else by count.
func TestSplitSpecs(t *testing.T) {
	specs := specNames(23)
	slow := map[string]int64{}
	for i, s := range specs {
		slow[s] = int64(10 + i%5)
	}
	slow[specs[0]] = 1000 // one spec as long as all the rest
	cases := []struct {
		name    string
		timings map[string]int64
		n       int
		// maxSize bounds a slice's spec count; loneFirst: specs[0] alone
		maxSize   int
		loneFirst bool
	}{
		{name: "by count", n: 4, maxSize: 6},
		{name: "one slice", n: 1, maxSize: 23},
		{name: "more slices than specs", n: 30, maxSize: 1},
		{name: "by duration", timings: slow, n: 3, loneFirst: true, maxSize: 22},
		{name: "partly known: the rest count as the mean", timings: map[string]int64{specs[0]: 1000, specs[1]: 10}, n: 2, maxSize: 12},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitSpecs(specs, tc.timings, tc.n)
			if len(got) != tc.n {
				t.Fatalf("%d slices, want %d", len(got), tc.n)
			}
			seen := map[string]int{}
			for _, sl := range got {
				if len(sl) > tc.maxSize {
					t.Fatalf("a slice of %d specs (at most %d): %v", len(sl), tc.maxSize, got)
				}
				for _, s := range sl {
					seen[s]++
				}
			}
			for _, s := range specs {
				if seen[s] != 1 {
					t.Fatalf("%s is in %d slices", s, seen[s])
				}
			}
			if len(seen) != len(specs) {
				t.Fatalf("slices hold %d specs, want %d", len(seen), len(specs))
			}
			if tc.loneFirst && !slices.ContainsFunc(got, func(sl []string) bool { return len(sl) == 1 && sl[0] == specs[0] }) {
				t.Fatalf("the long spec shares a slice: %v", got)
			}
			rev := slices.Clone(specs)
			slices.Reverse(rev)
			again := SplitSpecs(append(rev, specs[3]), tc.timings, tc.n) // order and duplicates do not matter
			for i := range got {
				if !slices.Equal(got[i], again[i]) {
					t.Fatalf("slice %d differs with another input order: %v vs %v", i, got[i], again[i])
				}
			}
		})
	}
}

// --shard I/N over the same list: each spec in exactly one of the N jobs.
func TestPickShardCoversAll(t *testing.T) {
	specs := specNames(50)
	seen := map[string]int{}
	for i := 1; i <= 4; i++ {
		for _, s := range PickShard(specs, nil, Shard{Index: i, Count: 4}) {
			seen[s]++
		}
	}
	for _, s := range specs {
		if seen[s] != 1 {
			t.Fatalf("%s ran in %d shards", s, seen[s])
		}
	}
	if got := PickShard(specs, nil, Shard{}); len(got) != 50 {
		t.Fatalf("no selection kept %d specs", len(got))
	}
}

func TestParseShard(t *testing.T) {
	cases := []struct {
		in   string
		want Shard
		bad  bool
	}{
		{in: "", want: Shard{}},
		{in: "1/4", want: Shard{1, 4}},
		{in: " 4 / 4 ", want: Shard{4, 4}},
		{in: "0/4", bad: true},
		{in: "5/4", bad: true},
		{in: "1/0", bad: true},
		{in: "1/1000", bad: true},
		{in: "a/b", bad: true},
		{in: "3", bad: true},
	}
	for _, tc := range cases {
		got, err := ParseShard(tc.in)
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), "I/N") {
				t.Fatalf("%q: %v", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Fatalf("%q: %v %v", tc.in, got, err)
		}
	}
}

// The timings file round-trips, keeps what this run did not measure, and
// a missing file is no timings while a broken one names itself.
func TestTimingsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "timings.json")
	got, err := ReadTimings(path)
	if err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
	if EncodeTimings(map[string]int64{"a": 1}, nil) != nil {
		t.Fatal("nothing measured: the file must stay as it is")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, EncodeTimings(map[string]int64{"a": 1, "b": 2}, map[string]int64{"b": 5, "c": 7}), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = ReadTimings(path)
	if err != nil || got["a"] != 1 || got["b"] != 5 || got["c"] != 7 || len(got) != 3 {
		t.Fatalf("read back %v %v", got, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTimings(bad); err == nil || !strings.Contains(err.Error(), "not a studio-bridge timings file") {
		t.Fatalf("broken file: %v", err)
	}
}

// A report whose run did not time its specs gives the timings file its
// tests' times, added up per spec; a report that did keeps its own.
func TestMergeTakesCaseDurations(t *testing.T) {
	untimed := &ShardedTestData{TestData: TestData{Tests: []TestCase{
		{Name: "a1", Status: "passed", File: "a.spec", DurationMs: 30},
		{Name: "a2", Status: "failed", File: "a.spec", DurationMs: 12},
		{Name: "b1", Status: "skipped", File: "b.spec"},
	}}}
	timed := &ShardedTestData{TestData: TestData{Tests: []TestCase{
		{Name: "c1", Status: "passed", File: "c.spec", DurationMs: 5},
	}}, SpecDurations: map[string]int64{"c.spec": 80}}
	got, err := MergeReports([]*ShardedTestData{untimed, timed}, []string{"one.json", "two.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a.spec": 42, "c.spec": 80}
	if len(got.SpecDurations) != len(want) || got.SpecDurations["a.spec"] != 42 || got.SpecDurations["c.spec"] != 80 {
		t.Fatalf("spec durations %v, want %v (b.spec ran no timed test)", got.SpecDurations, want)
	}
	if got.Tests[0].DurationMs != 30 || got.Passed != 2 || got.Failed != 1 || got.Skipped != 1 {
		t.Fatalf("merged tests %+v", got.TestData)
	}
}
