package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Sides of a conversation: who sends a section's frames.
const (
	Plugin = "plugin"
	Host   = "host"
	// Lost frames are ones the plugin sends that never reach the host:
	// the socket drops after them, and the plugin connects again (a
	// resume). A replay playing the host reads them from the old socket,
	// then drops it; one playing the plugin does not send them.
	Lost = "lost"
)

// Step is one section: frames From one side, in order.
type Step struct {
	From   string
	Frames []Frame
}

// Frame is one recorded frame and the line it is on.
type Frame struct {
	Raw  json.RawMessage
	Line int
	// Type is the frame's "type".
	Type string
}

// Transcript is one recorded conversation.
type Transcript struct {
	Name     string
	Comment  string
	Settings map[string]string
	Steps    []Step
}

// MaxBytes bounds a transcript file: they are small by design.
const MaxBytes = 1 << 20

// Parse reads one transcript; name says where it came from in errors.
func Parse(name string, data []byte) (*Transcript, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes; a transcript holds at most %d", name, len(data), MaxBytes)
	}
	t := &Transcript{Name: name, Settings: map[string]string{}}
	var comment []string
	var cur *Step
	for i, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		n := i + 1
		if side, ok := marker(line); ok {
			if side != Plugin && side != Host && side != Lost {
				return nil, fmt.Errorf("%s:%d: section %q: want %q, %q or %q", name, n, side, Plugin, Host, Lost)
			}
			t.Steps = append(t.Steps, Step{From: side})
			cur = &t.Steps[len(t.Steps)-1]
			continue
		}
		if cur == nil {
			comment = append(comment, line)
			if k, v, ok := strings.Cut(line, ": "); ok && k != "" && !strings.ContainsAny(k, " \t") {
				t.Settings[k] = strings.TrimSpace(v)
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		dec := json.NewDecoder(strings.NewReader(trimmed))
		if err := dec.Decode(&head); err != nil {
			return nil, fmt.Errorf("%s:%d: not one JSON frame: %v", name, n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line", name, n)
		}
		if head.Type == "" {
			return nil, fmt.Errorf("%s:%d: the frame has no \"type\"", name, n)
		}
		cur.Frames = append(cur.Frames, Frame{Raw: json.RawMessage(trimmed), Line: n, Type: head.Type})
	}
	if len(t.Steps) == 0 {
		return nil, fmt.Errorf("%s: no sections (-- plugin -- / -- host --)", name)
	}
	for _, s := range t.Steps {
		if len(s.Frames) == 0 {
			return nil, fmt.Errorf("%s: an empty %s section", name, s.From)
		}
	}
	t.Comment = strings.TrimSpace(strings.Join(comment, "\n"))
	return t, nil
}

// marker reports whether line is a section marker, "-- name --".
func marker(line string) (string, bool) {
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 7 {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

// Load parses every *.txtar file in dir, sorted by name.
func Load(dir string) ([]*Transcript, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("no transcripts (*.txtar) in %s", dir)
	}
	var out []*Transcript
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		t, err := Parse(filepath.Base(p), data)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Frames lists the frames side sends, in order.
func (t *Transcript) Frames(side string) []Frame {
	var out []Frame
	for _, s := range t.Steps {
		if s.From == side {
			out = append(out, s.Frames...)
		}
	}
	return out
}

// First is the first frame of the given type side sends, decoded into v;
// false when there is none.
func (t *Transcript) First(side, typ string, v any) bool {
	for _, f := range t.Frames(side) {
		if f.Type == typ {
			return json.Unmarshal(f.Raw, v) == nil
		}
	}
	return false
}

// Heartbeat reports whether a frame is a ping or a pong, which transcripts
// do not record.
func Heartbeat(frame []byte) bool {
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(frame, &head)
	return head.Type == "ping" || head.Type == "pong"
}

// Compact is a frame's JSON without insignificant space, for messages.
func Compact(frame []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, frame) != nil {
		return string(frame)
	}
	return b.String()
}
