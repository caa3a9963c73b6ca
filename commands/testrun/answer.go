package testrun

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// Answer is what the runner returns (one JSON string): the run's tests, or
// Error, one of the runner's refusals (testez-missing, root-missing,
// no-specs, …), which the command layer words for the user.
type Answer struct {
	Error      string            `json:"error"`
	Searched   []string          `json:"searched"`
	Tests      []TestCase        `json:"tests"`
	DurationMs int64             `json:"durationMs"`
	Names      map[string]string `json:"names"`
	// File and Bytes name the file Studio refused as a Source
	// (source-too-large).
	File  string `json:"file"`
	Bytes int    `json:"bytes"`
}

// DecodeAnswer reads the runner's answer from the exec's (or the task's)
// return values.
func DecodeAnswer(values []json.RawMessage) (*Answer, error) {
	var text string
	if len(values) != 1 || json.Unmarshal(values[0], &text) != nil {
		return nil, &protocol.Error{Code: protocol.CodeInvalidPayload, Message: "test: the runner answered an unexpected shape"}
	}
	var ans Answer
	if err := json.Unmarshal([]byte(text), &ans); err != nil {
		return nil, &protocol.Error{Code: protocol.CodeInvalidPayload, Message: fmt.Sprintf("test: the runner's answer is not JSON: %v", err)}
	}
	return &ans, nil
}

// Data is the report of an answer without Error: messages name files, not
// the mounted instances, and lose TestEZ's traceback lines; tests are
// located through the source map m (nil: no map); took stands in for a
// runner that did not time itself.
func (a *Answer) Data(m *sourcemap.Map, took time.Duration) TestData {
	data := TestData{Tests: a.Tests, DurationMs: a.DurationMs}
	if data.DurationMs == 0 {
		data.DurationMs = took.Milliseconds()
	}
	if data.Tests == nil {
		data.Tests = []TestCase{}
	}
	for i := range data.Tests {
		data.Tests[i].Message = dropFrames(RenameInstances(data.Tests[i].Message, a.Names))
		data.Tests[i] = LocateTestCase(m, data.Tests[i])
	}
	data.Count()
	return data
}

// LocateTestCase puts files first in a test's outcome: a --root spec named
// by its DataModel path gets its file from the map (the path moves to
// InstancePath), a spec file gets the path of its synced copy, and the
// message's locations become files.
func LocateTestCase(m *sourcemap.Map, tc TestCase) TestCase {
	if e, ok := m.Entry(tc.File); ok {
		tc.InstancePath, tc.File = tc.File, m.Show(e.File)
	} else if p := m.PathOf(tc.File); p != "" {
		tc.InstancePath = p
	}
	tc.Message = m.RewriteText(tc.Message)
	return tc
}

// frameLine is one line of a Luau traceback: "Chunk.Name:12" or
// "Chunk.Name:12 function f".
var frameLine = regexp.MustCompile(`^\S+:\d+( function \S+)?$`)

// dropFrames removes TestEZ's traceback lines from a failure message (the
// first line holds the file, line and message); what a test wrote on
// several lines stays.
func dropFrames(msg string) string {
	lines := strings.Split(msg, "\n")
	out := lines[:1]
	for _, l := range lines[1:] {
		if !frameLine.MatchString(strings.TrimSpace(l)) && strings.TrimSpace(l) != "stack traceback:" {
			out = append(out, l)
		}
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// RenameInstances replaces mounted instances' full names by their files
// (names, from Script), longest first (a folder's name is a prefix of its
// children's).
func RenameInstances(msg string, names map[string]string) string {
	if msg == "" || len(names) == 0 {
		return msg
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sortLongestFirst(keys)
	for _, k := range keys {
		msg = strings.ReplaceAll(msg, k+":", names[k]+":")
	}
	return msg
}
