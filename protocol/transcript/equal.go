package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Equal compares two JSON values: nil when they are the same value (key
// order and number spelling aside), else an error naming the first path
// where they differ.
func Equal(want, got []byte) error {
	w, err := decode(want)
	if err != nil {
		return fmt.Errorf("want: %v", err)
	}
	g, err := decode(got)
	if err != nil {
		return fmt.Errorf("got: %v", err)
	}
	if d := diff("$", w, g); d != "" {
		return fmt.Errorf("%s\n want %s\n  got %s", d, Compact(want), Compact(got))
	}
	return nil
}

func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// diff is "" for equal values, else where and how they differ.
func diff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", path, kind(got))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				return fmt.Sprintf("%s.%s: missing", path, k)
			case !inW:
				return fmt.Sprintf("%s.%s: not expected (got %s)", path, k, short(gv))
			}
			if d := diff(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %s", path, kind(got))
		}
		if len(w) != len(g) {
			return fmt.Sprintf("%s: want %d elements, got %d", path, len(w), len(g))
		}
		for i := range w {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: want the number %s, got %s", path, w, kind(got))
		}
		wf, _ := w.Float64()
		gf, _ := g.Float64()
		if wf != gf {
			return fmt.Sprintf("%s: want %s, got %s", path, w, g)
		}
		return ""
	}
	if want != got {
		return fmt.Sprintf("%s: want %s, got %s", path, short(want), short(got))
	}
	return ""
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}
