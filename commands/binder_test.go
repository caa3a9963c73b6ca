package commands

import (
	"reflect"
	"testing"
)

type binderArgs struct {
	First string   `json:"first" pos:"true" usage:"the first word"`
	Count int      `json:"count" word:"true" usage:"a number"`
	Rest  []string `json:"rest" pos:"true" usage:"the other words"`
}

// TestBinder: bare words fill the positional slots in order, then the word
// ones, a variadic slot takes every word after it (and stays open), and a
// flag given by name takes its argument out of the slots.
func TestBinder(t *testing.T) {
	t.Parallel()
	d := &Definition{Name: "t", Args: &binderArgs{}}
	for _, tt := range []struct {
		name     string
		flags    map[string]string
		words    []string
		want     binderArgs
		open     int
		overflow bool
	}{
		{"words only", nil, []string{"a", "b", "c"}, binderArgs{First: "a", Rest: []string{"b", "c"}}, 2, false},
		{"a flag frees its slot", map[string]string{"first": "x"}, []string{"b"}, binderArgs{First: "x", Rest: []string{"b"}}, 2, false},
		{"word slots after positionals", map[string]string{"rest": "r"}, []string{"a", "7"}, binderArgs{First: "a", Count: 7, Rest: []string{"r"}}, 0, false},
		{"no slot left", map[string]string{"first": "x", "rest": "r", "count": "1"}, []string{"b"}, binderArgs{First: "x", Count: 1, Rest: []string{"r"}}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := d.NewBinder()
			for _, a := range Fields(d.Args) {
				if v, ok := tt.flags[a.Name]; ok {
					if err := b.Set(a, v); err != nil {
						t.Fatal(err)
					}
				}
			}
			overflow := false
			for _, w := range tt.words {
				ok, err := b.Word(w)
				if err != nil {
					t.Fatal(err)
				}
				overflow = overflow || !ok
			}
			if got := *b.Args.(*binderArgs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args %+v, want %+v", got, tt.want)
			}
			if len(b.Open()) != tt.open || overflow != tt.overflow {
				t.Errorf("open %v, overflow %v; want %d open, overflow %v", b.Open(), overflow, tt.open, tt.overflow)
			}
		})
	}
}
