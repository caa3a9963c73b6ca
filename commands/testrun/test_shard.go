package testrun

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Sharding: splitting a suite's specs into slices for concurrent Open
// Cloud tasks (--parallel) and for CI matrix jobs (--shard I/N). Both use
// the same deterministic split, so every job of a matrix computes the same
// slices from the same spec list and timings file.

// Shard is --shard I/N: run only slice Index (1-based) of Count.
type Shard struct{ Index, Count int }

// MaxShards bounds --shard's N (a CI matrix is far smaller).
const MaxShards = 256

// ParseShard reads "I/N" with 1 ≤ I ≤ N ≤ MaxShards; "" is no selection.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || b < 1 || b > MaxShards || a < 1 || a > b {
		return Shard{}, usagef("test: --shard %q is not I/N with 1 ≤ I ≤ N ≤ %d (e.g. 2/4: the second of four slices)", s, MaxShards)
	}
	return Shard{Index: a, Count: b}, nil
}

// SplitSpecs deals specs into n slices, deterministically: with durations
// known (timings, from earlier runs) the longest spec goes first to the
// least-loaded slice (ties to the lowest index), a spec without a timing
// counting as the known specs' mean; with no timings at all, by count. The
// input order does not matter; each slice is returned sorted, and together
// the slices hold every spec exactly once. Empty slices are kept so slice
// indices stay stable.
func SplitSpecs(specs []string, timings map[string]int64, n int) [][]string {
	n = max(n, 1)
	all := slices.Clone(specs)
	slices.Sort(all)
	all = slices.Compact(all)
	out := make([][]string, n)
	weight := func(string) int64 { return 1 }
	var sum, known int64
	for _, s := range all {
		if ms, ok := timings[s]; ok && ms >= 0 {
			sum += ms
			known++
		}
	}
	if known > 0 {
		mean := max(sum/known, 1)
		weight = func(s string) int64 {
			if ms, ok := timings[s]; ok && ms >= 0 {
				return max(ms, 1) // a 0 ms spec still costs its slot
			}
			return mean
		}
		// longest first; names break ties, so the order is total
		sort.SliceStable(all, func(i, j int) bool { return weight(all[i]) > weight(all[j]) })
	}
	load := make([]int64, n)
	for _, s := range all {
		best := 0
		for i := 1; i < n; i++ {
			if load[i] < load[best] {
				best = i
			}
		}
		out[best] = append(out[best], s)
		load[best] += weight(s)
	}
	for i := range out {
		slices.Sort(out[i])
	}
	return out
}

// PickShard returns the selected slice of specs (all of them without a
// selection).
func PickShard(specs []string, timings map[string]int64, sel Shard) []string {
	if sel.Count <= 1 {
		return specs
	}
	return SplitSpecs(specs, timings, sel.Count)[sel.Index-1]
}

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }
