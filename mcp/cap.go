package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/studio-bridge/studio-bridge/commands"
)

// Output caps: studio_exec, studio_logs, studio_query and studio_test
// (Definitions with LargeOutput) answer at most maxOutputBytes of JSON
// (DefaultMaxOutput unless the call asks otherwise), so one chatty script
// cannot flood an agent's context. A result that knows how to cut itself
// (commands.Fitter: studio_test shortens failure messages and keeps every
// test) is asked first. Otherwise, or for what still does not fit, what is
// cut is the middle: long arrays keep their first and last items, long
// strings their head and tail; every object keeps all its keys, so the
// result still matches the tool's output schema. A capped result says so at
// the top: "truncated": true, "totalBytes": the size of the whole answer.

// Bounds of the maxOutputBytes argument.
const (
	DefaultMaxOutput = 64 << 10
	MinMaxOutput     = 1 << 10
	MaxMaxOutput     = 16 << 20
)

const maxOutputDesc = "Cap the result at this many bytes of JSON (default 65536): the middle of long output is cut, keeping its head and tail, and the result then carries truncated: true and totalBytes."

// fitterDesc is maxOutputBytes' description for results that cut themselves.
const fitterDesc = "Cap the result at this many bytes of JSON (default 65536): failure messages are shortened (every test stays in the document), and the result then carries truncated: true and totalBytes."

// maxOutputDescFor is the maxOutputBytes description for d's result.
func maxOutputDescFor(d *commands.Definition) string {
	if f, ok := d.Output.(interface{ FitDescription() string }); ok {
		return f.FitDescription() // a Fitter that says how it cuts (script read)
	}
	if _, ok := d.Output.(commands.Fitter); ok {
		return fitterDesc
	}
	return maxOutputDesc
}

// capOutput returns data, or when its JSON is larger than limit a copy cut
// to fit, with "truncated" and "totalBytes" added at the top.
func capOutput(data any, limit int) (any, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	if len(raw) <= limit {
		return data, nil
	}
	total := len(raw)
	if f, ok := data.(commands.Fitter); ok {
		// its own cut first, leaving room for the marks added below
		marks := len(fmt.Sprintf(`,"totalBytes":%d,"truncated":true`, total))
		if raw, err = json.Marshal(f.Fit(limit - marks)); err != nil {
			return nil, err
		}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a capped result must be a JSON object, got %T", v)
	}
	top["truncated"] = true
	top["totalBytes"] = total
	if size(top) <= limit {
		return top, nil
	}
	// Cutting is approximate (escapes, separators): shrink the budget until
	// the result fits.
	budget := limit
	for range 8 {
		cut := shrink(top, budget).(map[string]any)
		cut["truncated"], cut["totalBytes"] = true, total
		n := size(cut)
		if n <= limit {
			return cut, nil
		}
		budget -= n - limit + 64
		if budget < 2 {
			break
		}
	}
	return map[string]any{"truncated": true, "totalBytes": total}, nil
}

// size is the length of v's JSON.
func size(v any) int {
	raw, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(raw)
}

// shrink returns v, or a copy of v whose JSON is about budget bytes or less.
func shrink(v any, budget int) any {
	n := size(v)
	if n <= budget {
		return v
	}
	switch x := v.(type) {
	case string:
		return cutString(x, budget)
	case []any:
		return cutArray(x, budget)
	case map[string]any:
		return cutObject(x, n, budget)
	}
	return v // numbers, booleans, null: nothing to cut
}

// cutObject keeps every key; the values that do not fit share what is left
// after the ones that do, in proportion to their size.
func cutObject(m map[string]any, total, budget int) any {
	type entry struct {
		key  string
		size int
	}
	entries := make([]entry, 0, len(m))
	for k, v := range m {
		entries = append(entries, entry{k, size(v)})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].size < entries[j].size })
	overhead := total
	for _, e := range entries {
		overhead -= e.size
	}
	left := budget - overhead
	out := make(map[string]any, len(m))
	for i, e := range entries {
		share := left / (len(entries) - i)
		if e.size <= share {
			out[e.key] = m[e.key]
			left -= e.size
			continue
		}
		// the rest are bigger: split what is left by size
		var rest int
		for _, r := range entries[i:] {
			rest += r.size
		}
		for _, r := range entries[i:] {
			b := max(left*r.size/max(rest, 1), 0)
			out[r.key] = shrink(m[r.key], b)
		}
		break
	}
	return out
}

// cutArray keeps items from both ends, alternately, while they fit; if not
// even one does, the first is cut to fit.
func cutArray(a []any, budget int) any {
	room := budget - 2 // [ ]
	var head, tail []any
	i, j := 0, len(a)-1
	fromHead := true
	for i <= j {
		k := j
		if fromHead {
			k = i
		}
		n := size(a[k]) + 1 // its comma
		if n > room {
			break
		}
		room -= n
		if fromHead {
			head = append(head, a[i])
			i++
		} else {
			tail = append(tail, a[j])
			j--
		}
		fromHead = !fromHead
	}
	if len(head) == 0 && len(a) > 0 {
		return []any{shrink(a[0], budget-2)}
	}
	out := make([]any, 0, len(head)+len(tail))
	out = append(out, head...)
	for k := len(tail) - 1; k >= 0; k-- {
		out = append(out, tail[k])
	}
	return out
}

// cutString keeps the head and the tail of s, on UTF-8 boundaries, with a
// note of what was cut between them.
func cutString(s string, budget int) string {
	note := fmt.Sprintf(" …[%d bytes cut]… ", len(s))
	keep := (budget - 2 - len(note)) * 7 / 8 // quotes, the note, room for escapes
	if keep <= 0 {
		return ""
	}
	headEnd := keep / 2
	for headEnd > 0 && !utf8.RuneStart(s[headEnd]) {
		headEnd--
	}
	tailStart := len(s) - keep/2
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	return s[:headEnd] + fmt.Sprintf(" …[%d bytes cut]… ", tailStart-headEnd) + s[tailStart:]
}
