package terminal

import (
	"context"
	"reflect"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
)

func TestSplitWords(t *testing.T) {
	t.Parallel()
	got, err := splitWords(`.query "Workspace.My Part" --depth 2  'a b'`)
	want := []string{".query", "Workspace.My Part", "--depth", "2", "a b"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := splitWords(`.query "open`); err == nil {
		t.Fatal("unclosed quote must fail")
	}
}

func TestDotArgs(t *testing.T) {
	t.Parallel()
	a, err := dotArgs(commands.Logs, []string{"20", "--head", "--levels", "Warning,Error"})
	if err != nil {
		t.Fatal(err)
	}
	logs := a.(*commands.LogsArgs)
	if logs.Count != 20 || logs.Direction != "head" || !reflect.DeepEqual(logs.Levels, []string{"Warning", "Error"}) {
		t.Fatalf("%+v", logs)
	}
	q, err := dotArgs(commands.Query, []string{"Workspace", "-d", "1", "--attributes", "--properties=Name,Size"})
	if err != nil {
		t.Fatal(err)
	}
	qa := q.(*commands.QueryArgs)
	if qa.Path != "Workspace" || qa.Depth != 1 || !qa.IncludeAttributes || len(qa.Properties) != 2 {
		t.Fatalf("%+v", qa)
	}
	// A variadic positional (test's paths) takes every bare word as it is,
	// commas included.
	ta, err := dotArgs(commands.Test, []string{"src", "--junit", "out.xml", "tests/a,b", "more"})
	if err != nil {
		t.Fatal(err)
	}
	if tt := ta.(*commands.TestArgs); !reflect.DeepEqual(tt.Paths, []string{"src", "tests/a,b", "more"}) || tt.JUnit != "out.xml" {
		t.Fatalf("%+v", tt)
	}
	for _, bad := range [][]string{{"--nope"}, {"1", "2"}, {"--count"}, {"ten"}} {
		if _, err := dotArgs(commands.Logs, bad); err == nil {
			t.Errorf("%q must fail", bad)
		}
	}
	// Values the words carry are checked by commands.Invoke, as on
	// every surface.
	a, err = dotArgs(commands.Logs, []string{"--levels", "Loud"})
	if err != nil {
		t.Fatal(err)
	}
	if o := commands.Invoke(context.Background(), commands.Request{Command: commands.Logs, Args: a}); o.Kind != commands.Usage {
		t.Errorf("--levels Loud: %v %v, want a usage error", o.Kind, o.Err)
	}
}
