package testrun

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TestCase is one test's outcome.
type TestCase struct {
	// Name is the describe and it phrases joined with " › "; a spec that
	// failed to load is named after its file.
	Name    string `json:"name"`
	Status  string `json:"status"` // passed, failed or skipped
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message,omitempty"`
	// InstancePath is the spec's DataModel path where one is known: the
	// instance a --root run found (File is then its file from the source
	// map, when the map has it), or the synced copy of a spec file.
	InstancePath string `json:"instancePath,omitempty"`
	// DurationMs is how long the test ran, in milliseconds: with TestEZ its
	// it function, from call to return or error, yields included but not
	// its beforeEach/afterEach hooks; with Jest-Lua, Jest's own duration.
	// It is 0 for a test that did not run (skipped, or a spec that failed
	// to load).
	DurationMs int64 `json:"durationMs"`
}

// TestData is the test command's output.
type TestData struct {
	Passed     int        `json:"passed"`
	Failed     int        `json:"failed"`
	Skipped    int        `json:"skipped"`
	DurationMs int64      `json:"durationMs"`
	Tests      []TestCase `json:"tests"`
}

func (d *TestData) Count() {
	d.Passed, d.Failed, d.Skipped = 0, 0, 0
	for _, t := range d.Tests {
		switch t.Status {
		case "passed":
			d.Passed++
		case "failed":
			d.Failed++
		default:
			d.Skipped++
		}
	}
}

// Summary is the report for people: each failure with its file (and line)
// and message, then the counts.
func (d TestData) Summary() string {
	var b strings.Builder
	for _, t := range d.Tests {
		if t.Status != "failed" {
			continue
		}
		loc := location(t)
		fmt.Fprintf(&b, "FAIL %s\n     %s\n", t.Name, loc)
		// the location is said once: Luau's "file:line: " prefix goes
		msg := strings.TrimPrefix(t.Message, loc+": ")
		for _, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
			b.WriteString("     " + l + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped (%s)\n", d.Passed, d.Failed, d.Skipped, millis(d.DurationMs))
	return b.String()
}

// FailureLine is the closing error of a run with failures, counting as
// the summary line above it counts: every test, skipped ones included
// ("10 passed, 6 failed, 1 skipped" then "6 of 17 tests failed (1
// skipped)").
func (d TestData) FailureLine() string {
	total := d.Passed + d.Failed + d.Skipped
	line := fmt.Sprintf("%d of %d tests failed", d.Failed, total)
	if d.Skipped > 0 {
		line += fmt.Sprintf(" (%d skipped)", d.Skipped)
	}
	return line
}

func location(t TestCase) string {
	if t.Line > 0 {
		return fmt.Sprintf("%s:%d", t.File, t.Line)
	}
	return t.File
}

func millis(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// GitHub is one ::error workflow command per failure, then the counts.
// Data is escaped as GitHub's workflow commands require (% CR LF), and
// property values also : and , (actions/toolkit, command.ts).
func (d TestData) GitHub() string {
	var b strings.Builder
	for _, t := range d.Tests {
		if t.Status != "failed" {
			continue
		}
		b.WriteString("::error file=" + ghProperty(t.File))
		if t.Line > 0 {
			b.WriteString(",line=" + strconv.Itoa(t.Line))
		}
		b.WriteString(",title=" + ghProperty(t.Name) + "::" + ghData(t.Message) + "\n")
	}
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped (%s)\n", d.Passed, d.Failed, d.Skipped, millis(d.DurationMs))
	return b.String()
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// JUnit is the report as JUnit XML: one testsuite per spec file.
func (d TestData) JUnit() []byte {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string    `xml:"name,attr"`
		Classname string    `xml:"classname,attr"`
		File      string    `xml:"file,attr,omitempty"`
		Line      int       `xml:"line,attr,omitempty"`
		Time      string    `xml:"time,attr"`
		Failure   *failure  `xml:"failure,omitempty"`
		Skipped   *struct{} `xml:"skipped,omitempty"`
	}
	type testsuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Time     string      `xml:"time,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	out := testsuites{Name: "studio-bridge test", Tests: len(d.Tests), Failures: d.Failed, Skipped: d.Skipped,
		Time: seconds(d.DurationMs)}
	index := map[string]int{}
	suiteMs := []int64{}
	for _, t := range d.Tests {
		i, ok := index[t.File]
		if !ok {
			i = len(out.Suites)
			index[t.File] = i
			out.Suites = append(out.Suites, testsuite{Name: t.File})
			suiteMs = append(suiteMs, 0)
		}
		s := &out.Suites[i]
		c := testcase{Name: xmlText(t.Name), Classname: xmlText(t.File), File: xmlText(t.File), Line: t.Line, Time: seconds(t.DurationMs)}
		s.Tests++
		suiteMs[i] += t.DurationMs
		switch t.Status {
		case "failed":
			s.Failures++
			first, _, _ := strings.Cut(t.Message, "\n")
			c.Failure = &failure{Message: xmlText(first), Text: xmlText(t.Message)}
		case "skipped":
			s.Skipped++
			c.Skipped = &struct{}{}
		}
		s.Cases = append(s.Cases, c)
	}
	for i := range out.Suites {
		// a suite's time is its tests' (the spec's loading and hooks are
		// not in it)
		out.Suites[i].Time = seconds(suiteMs[i])
	}
	b, _ := xml.MarshalIndent(out, "", "  ")
	return append(append([]byte(xml.Header), b...), '\n')
}

// seconds is milliseconds as JUnit's time attribute: seconds, three
// decimals.
func seconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

// xmlText drops what XML 1.0 cannot hold (control characters other than
// tab and newlines, invalid UTF-8): Go's encoder escapes the rest.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == utf8.RuneError, r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xFFFE, r == 0xFFFF:
			return '?'
		}
		return r
	}, s)
}

// Fit is the MCP output cap's way to cut a report (Fitter): agents get every
// test and its status, and as much of each message as fits.
func (d TestData) Fit(budget int) any { return d.fit(budget) }

// fit cuts failure messages, sharing what is left evenly, until the JSON
// document is at most budget bytes (or no message is left to cut).
func (d TestData) fit(budget int) TestData {
	size := func(x TestData) int {
		b, _ := json.Marshal(x)
		return len(b)
	}
	over := size(d) - budget
	if over <= 0 {
		return d
	}
	tests := append([]TestCase(nil), d.Tests...)
	d.Tests = tests
	// Give every message an equal share of what is left for messages.
	total := 0
	for _, t := range tests {
		total += len(t.Message)
	}
	share := (total - over) / max(1, countMessages(tests))
	for share >= 0 {
		for i := range tests {
			tests[i].Message = cutMessage(tests[i].Message, share)
		}
		if size(d) <= budget || share == 0 {
			break
		}
		share /= 2
	}
	return d
}

func countMessages(tests []TestCase) int {
	n := 0
	for _, t := range tests {
		if t.Message != "" {
			n++
		}
	}
	return n
}

const cutMark = " … [cut]"

// cutMessage keeps at most n bytes of s (at a UTF-8 boundary) and marks it.
func cutMessage(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= len(cutMark) {
		n = 0
	} else {
		n -= len(cutMark)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMark
}

func sortLongestFirst(keys []string) {
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
}
