package cloudtest

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Suite answers test --cloud's runner tasks from a list of specs instead of
// running Luau: it reads the CONFIG line the runner starts with (root,
// only, discover, perSpec, placeVersion) and answers what the runner would
// for specs that behave as given, taking each spec's Delay of the task's
// time. It is a Server.Runner. What it does not do is execute the specs:
// a spec's tests are as declared here.
type Suite struct {
	// Specs are the specs under the root, by file (the runner's name for
	// them: the root's full name, then the path below it).
	Specs []SuiteSpec
}

// SuiteSpec is one spec of a Suite.
type SuiteSpec struct {
	File string
	// Passed, Failed and Skipped are how many tests end each way.
	Passed, Failed, Skipped int
	// Delay is the time the spec takes (a spec that task.waits).
	Delay time.Duration
}

var (
	configLine   = regexp.MustCompile(`^local CONFIG = \{(.*)\}$`)
	luauStr      = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	onlyField    = regexp.MustCompile(`only=\{([^}]*)\}`)
	versionField = regexp.MustCompile(`placeVersion=(\d+)`)
)

// Outcome is the Server.Runner: the runner's answer for script on version.
func (s *Suite) Outcome(script string, version int64) Outcome {
	line, _, _ := strings.Cut(script, "\n")
	m := configLine.FindStringSubmatch(line)
	if m == nil {
		return Outcome{State: "FAILED", Code: "SCRIPT_ERROR", Message: "cloudtest.Suite: the script has no CONFIG line"}
	}
	config := m[1]
	answer := func(v any, delay time.Duration) Outcome {
		b, _ := json.Marshal(v)
		return Outcome{Results: []any{string(b)}, Delay: max(delay, time.Millisecond)}
	}
	if vm := versionField.FindStringSubmatch(config); vm != nil {
		want, _ := strconv.ParseInt(vm[1], 10, 64)
		if want != version {
			return answer(map[string]any{"error": "place-version", "placeVersion": version}, 0)
		}
	}
	var only map[string]bool
	if om := onlyField.FindStringSubmatch(config); om != nil {
		only = map[string]bool{}
		for _, q := range luauStr.FindAllStringSubmatch(om[1], -1) {
			only[strings.ReplaceAll(strings.ReplaceAll(q[1], `\"`, `"`), `\\`, `\`)] = true
		}
	}
	var specs []SuiteSpec
	for _, sp := range s.Specs {
		if only == nil || only[sp.File] {
			specs = append(specs, sp)
		}
	}
	sort.Slice(specs, func(i, j int) bool { return strings.ToLower(specs[i].File) < strings.ToLower(specs[j].File) })
	if len(specs) == 0 {
		return answer(map[string]any{"error": "no-specs"}, 0)
	}
	if strings.Contains(config, "discover=true") {
		files := []string{}
		for _, sp := range specs {
			files = append(files, sp.File)
		}
		return answer(map[string]any{"specs": files}, 0)
	}
	tests := []map[string]any{}
	durations := map[string]int64{}
	var total time.Duration
	for _, sp := range specs {
		add := func(n int, status string) {
			for i := range n {
				t := map[string]any{"name": sp.File + " › " + status + " " + strconv.Itoa(i+1), "status": status, "file": sp.File}
				if status == "failed" {
					t["line"] = 3
					t["message"] = sp.File + ":3: expected failure"
				}
				tests = append(tests, t)
			}
		}
		add(sp.Passed, "passed")
		add(sp.Failed, "failed")
		add(sp.Skipped, "skipped")
		durations[sp.File] = sp.Delay.Milliseconds()
		total += sp.Delay
	}
	out := map[string]any{"tests": tests, "durationMs": total.Milliseconds(), "names": map[string]string{}}
	if strings.Contains(config, "perSpec=true") {
		out["specDurations"] = durations
	}
	return answer(out, total)
}
