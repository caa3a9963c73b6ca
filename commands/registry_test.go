package commands

import (
	"regexp"
	"strings"
	"testing"
)

// TestRegistry walks every definition: the adapters rely on these invariants.
func TestRegistry(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	name := regexp.MustCompile(`^[a-z][a-z-]*$`)
	for _, d := range All {
		if !name.MatchString(d.Name) || seen[d.Path()] || (d.Group != nil && !name.MatchString(d.Group.Name)) {
			t.Errorf("bad or duplicate command name %q", d.Path())
		}
		seen[d.Path()] = true
		if d.Summary == "" || d.run == nil {
			t.Errorf("%s: needs a summary and a Run", d.Name)
		}
		Fields(d.Args) // panics on an undescribable Args struct
		if Lookup(d.Path()) != d {
			t.Errorf("%s: Lookup does not find it", d.Name)
		}
		if d.NeedsSession && d.Timeout == 0 {
			t.Errorf("%s: session commands need a default timeout", d.Name)
		}
	}
}

func TestFieldsAndUsage(t *testing.T) {
	t.Parallel()
	fields := Fields(Call.Args)
	if len(fields) != 2 || fields[0].Name != "action" || !fields[0].Required || !fields[0].Positional {
		t.Fatalf("call fields: %+v", fields)
	}
	if got := Call.Usage(); got != "call <action> [payload]" {
		t.Fatalf("usage %q", got)
	}
	// a positional with choices names them (play --help, .help)
	if got := Play.Usage(); got != "play <start|stop|status>" {
		t.Fatalf("play usage %q", got)
	}
	if h := Exec.CLIHelp(); !strings.Contains(h, "- to read the script from standard input") || !strings.Contains(h, "Timeout: 120 seconds") {
		t.Fatalf("exec help %q", h)
	}
	if !NamesAll("testez, or jest (Jest-Lua)", []string{"testez", "jest"}) || NamesAll("how failures are reported", []string{"text", "github"}) {
		t.Fatal("NamesAll")
	}
	if _, ok := Call.NewArgs().(*CallArgs); !ok {
		t.Fatal("NewArgs does not return *CallArgs")
	}
}
