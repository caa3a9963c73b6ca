package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
)

// groupArgs are the arguments of the test registry's leaves.
type groupArgs struct {
	Word  string `json:"word" pos:"true" required:"true" usage:"a word"`
	Count int    `json:"count" short:"n" default:"1" usage:"how many"`
}

// testGroupRegistry is a registry of its own: a plain command and a group
// "grp" with two leaves, each one Define'd definition. ran records each
// leaf's path and arguments.
func testGroupRegistry(ran *[]string) []*commands.Definition {
	grp := &commands.Group{Name: "grp", Summary: "A group of two leaves."}
	leaf := func(name string) *commands.Definition {
		return commands.Define(commands.Spec[groupArgs, commands.NoData]{
			Definition: commands.Definition{Name: name, Group: grp, Summary: "The " + name + " leaf.", Local: true},
			Run: func(_ context.Context, env *commands.Env, args *groupArgs) (*commands.Result, error) {
				*ran = append(*ran, env.Command.Path()+" "+args.Word+" "+strings.Repeat("+", args.Count))
				return &commands.Result{Text: "ok\n"}, nil
			},
		})
	}
	plain := commands.Define(commands.Spec[commands.NoArgs, commands.NoData]{
		Definition: commands.Definition{Name: "plain", Summary: "A plain command.", Local: true},
		Run: func(context.Context, *commands.Env, *commands.NoArgs) (*commands.Result, error) {
			*ran = append(*ran, "plain")
			return &commands.Result{}, nil
		},
	})
	return []*commands.Definition{plain, leaf("one"), leaf("two")}
}

// TestCommandGroups: a group is one CLI command with a subcommand per
// leaf; each leaf binds its own flags and positionals (in any order), and
// a missing or unknown leaf is a usage error naming the leaves.
func TestCommandGroups(t *testing.T) {
	var ran []string
	defs := testGroupRegistry(&ran)
	if got := commands.LookupIn(defs, "grp two"); got != defs[2] || got.Usage() != "grp two <word>" {
		t.Fatalf("lookup grp two: %v", got)
	}
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		app := newAppWith(defs, IO{In: strings.NewReader(""), Out: &out, Err: &errOut}, new(error))
		err := app.RunContext(context.Background(), interspersed(app, append([]string{"studio-bridge"}, args...)))
		return out.String(), errOut.String(), err
	}
	if _, _, err := run("grp", "one", "hello", "-n", "3"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run("grp", "two", "--count", "2", "bye"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"grp one hello +++", "grp two bye ++"}; strings.Join(ran, "|") != strings.Join(want, "|") {
		t.Fatalf("ran %q, want %q", ran, want)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"grp"}, "grp needs a subcommand: one, two"},
		{[]string{"grp", "three"}, `grp: unknown subcommand "three"; it has one, two`},
		{[]string{"grp", "one"}, "grp one needs <word>; usage: studio-bridge grp one <word>"},
		{[]string{"grp", "one", "x", "--nope"}, "usage: studio-bridge grp one <word> [flags]"},
	} {
		_, _, err := run(tc.args...)
		var ue commands.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v, want a usage error saying %q", tc.args, err, tc.says)
		}
	}
	out, _, err := run("grp", "--help")
	if err != nil || !strings.Contains(out, "one") || !strings.Contains(out, "The two leaf.") {
		t.Fatalf("grp --help: %v\n%s", err, out)
	}
	out, _, err = run("--help")
	if err != nil || !strings.Contains(out, "A group of two leaves.") || strings.Contains(out, "The one leaf.") {
		t.Fatalf("--help lists the group, not its leaves: %v\n%s", err, out)
	}
}
