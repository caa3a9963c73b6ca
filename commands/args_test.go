package commands

import (
	"strings"
	"testing"
)

// embeddedArgs shares argument groups as exec and test do.
type embeddedArgs struct {
	Own string `json:"own" usage:"an argument of its own"`
	CloudPlace
	Playtest
}

// TestFieldsFollowEmbeddedStructs: the arguments of an embedded group are
// the command's own, in place, and setting one sets the group's field.
func TestFieldsFollowEmbeddedStructs(t *testing.T) {
	t.Parallel()
	d := &Definition{Name: "t", Args: &embeddedArgs{}}
	var names []string
	for _, a := range Fields(d.Args) {
		names = append(names, a.Name)
	}
	if got, want := strings.Join(names, " "), "own universe place placeVersion placeFile play run"; got != want {
		t.Fatalf("fields %q, want %q", got, want)
	}
	args := d.NewArgs()
	set := map[string]string{"own": "o", "place": "7", "placeVersion": "3", "run": "true"}
	for _, a := range Fields(d.Args) {
		if v, ok := set[a.Name]; ok {
			if err := Set(args, a, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := args.(*embeddedArgs)
	if got.Own != "o" || got.Place != "7" || got.PlaceVersion != 3 || !got.Run || got.Play {
		t.Fatalf("args %+v", got)
	}
}
