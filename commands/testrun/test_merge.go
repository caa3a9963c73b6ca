package testrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
)

// ShardReport is one Open Cloud task of a run (or one CI shard's run, in a
// merged report): its index, the task that ran it, how long the task took
// and which specs it ran.
type ShardReport struct {
	// Index is the task's slice, 1-based.
	Index      int      `json:"index"`
	TaskPath   string   `json:"taskPath"`
	DurationMs int64    `json:"durationMs"`
	Specs      []string `json:"specs"`
}

// ShardedTestData is test --cloud --parallel's report and test --merge's:
// a single run's document (TestData, whose renderings it shares) plus the
// shards that made it and each spec's measured duration (the timings file's
// source).
type ShardedTestData struct {
	TestData
	Shards        []ShardReport    `json:"shards"`
	SpecDurations map[string]int64 `json:"specDurations,omitempty"`
}

// maxReportBytes bounds one report file read by --merge.
const maxReportBytes = 256 << 20

// ReadReport reads one --json report of test (sharded or not).
func ReadReport(path string) (*ShardedTestData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("test --merge: %s cannot be read: %v", path, errors.Unwrap(err))
	}
	defer func() { _ = f.Close() }()
	raw, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("test --merge: read %s: %w", path, err)
	}
	if len(raw) > maxReportBytes {
		return nil, usagef("test --merge: %s is larger than %d MiB; it is not one test report", path, maxReportBytes>>20)
	}
	var d ShardedTestData
	if err := json.Unmarshal(raw, &d); err != nil || d.Tests == nil {
		return nil, usagef("test --merge: %s is not a report of `studio-bridge test --json` (it needs a \"tests\" list)", path)
	}
	for _, t := range d.Tests {
		switch t.Status {
		case "passed", "failed", "skipped":
		default:
			return nil, usagef("test --merge: %s: test %q has status %q (want passed, failed or skipped)", path, t.Name, t.Status)
		}
	}
	return &d, nil
}

// MergeReports makes one report of several runs' (CI shards, or the tasks
// of one run): every test once per run, ordered by spec file as one run
// orders them, counts recounted, the longest run's duration (they ran side
// by side), shards renumbered in order and spec durations joined. A spec
// reported by two inputs is refused: the shards overlapped.
func MergeReports(parts []*ShardedTestData, names []string) (*ShardedTestData, error) {
	out := &ShardedTestData{TestData: TestData{Tests: []TestCase{}}, Shards: []ShardReport{}, SpecDurations: map[string]int64{}}
	owner := map[string]int{}
	for i, p := range parts {
		files := map[string]bool{}
		for _, t := range p.Tests {
			files[t.File] = true
		}
		for f := range files {
			if j, dup := owner[f]; dup {
				return nil, usagef("test --merge: %s and %s both report %s: the shards overlap (were they cut with the same --shard N and spec list?)", names[j], names[i], f)
			}
			owner[f] = i
		}
		out.Tests = append(out.Tests, p.Tests...)
		out.DurationMs = max(out.DurationMs, p.DurationMs)
		for _, s := range p.Shards {
			s.Index = len(out.Shards) + 1
			out.Shards = append(out.Shards, s)
		}
		if len(p.Shards) == 0 { // a run of one task, or a report of an older version
			specs := slices.Sorted(maps.Keys(files))
			out.Shards = append(out.Shards, ShardReport{Index: len(out.Shards) + 1, DurationMs: p.DurationMs, Specs: specs})
		}
		if len(p.SpecDurations) > 0 {
			maps.Copy(out.SpecDurations, p.SpecDurations)
		} else {
			// a run that did not time its specs (one task, a Studio run,
			// Jest-Lua): its tests' times, for the timings file
			maps.Copy(out.SpecDurations, p.caseDurations())
		}
	}
	sortTests(out.Tests)
	out.Count()
	return out, nil
}

// caseDurations is each spec file's tests' durations added up, a lower
// bound of the spec's time (loading and hooks are not in it); nil when no
// test was timed.
func (d *TestData) caseDurations() map[string]int64 {
	var out map[string]int64
	for _, t := range d.Tests {
		if t.DurationMs > 0 {
			if out == nil {
				out = map[string]int64{}
			}
			out[t.File] += t.DurationMs
		}
	}
	return out
}

// sortTests orders tests by spec file, keeping each file's own order (the
// order its plan ran them), as one run lists them.
func sortTests(tests []TestCase) {
	sort.SliceStable(tests, func(i, j int) bool {
		return strings.ToLower(tests[i].File) < strings.ToLower(tests[j].File)
	})
}
