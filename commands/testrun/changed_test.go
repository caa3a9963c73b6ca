package testrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/sourcemap"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// changedFixture is testdata/changed in a new git repository tagged base,
// then Util.luau changed in a commit and Mine.spec.luau changed in the
// work tree only.
func changedFixture(t *testing.T) string {
	t.Helper()
	dir := kit.GitRepo(t, kit.ReadTree(t, filepath.Join("testdata", "changed")))
	kit.Git(t, dir, "tag", "base")
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/shared/Util.luau", "return { double = function(n) return n + n end }\n")
	kit.Git(t, dir, "commit", "-q", "-am", "util changes")
	write("src/shared/Mine.spec.luau", "return function() it(\"needs nothing\", function() end) end\n")
	return dir
}

func TestChangedSinceFollowsRequires(t *testing.T) {
	dir := changedFixture(t)
	// a new file git does not know yet counts as changed too
	if err := os.WriteFile(filepath.Join(dir, "src", "shared", "New.luau"), []byte("return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ChangedFiles(context.Background(), dir, "base")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for f := range files {
		rel, _ := filepath.Rel(dir, f)
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	if want := []string{"src/shared/Mine.spec.luau", "src/shared/New.luau", "src/shared/Util.luau"}; !slices.Equal(got, want) {
		t.Fatalf("changed files %v, want %v", got, want)
	}
	m, err := sourcemap.Load(filepath.Join(dir, "sourcemap.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewChanges(m, files)
	for _, tc := range []struct {
		spec string
		runs bool
		why  string
	}{
		{"Util", true, "it requires a changed module"},
		{"Deep", true, "it requires a module that requires a changed one"},
		{"Mine", true, "its own file changed (uncommitted)"},
		{"Dyn", true, "a require it cannot resolve"},
		{"Other", false, "nothing it requires changed"},
	} {
		file := filepath.Join(dir, "src", "shared", tc.spec+".spec.luau")
		if got := !c.SkipFile(file); got != tc.runs {
			t.Errorf("%s.spec runs: %v, want %v (%s)", tc.spec, got, tc.runs, tc.why)
		}
	}
	skip, known := c.Skipped("ReplicatedStorage.Shared")
	if known != 5 || !slices.Equal(skip, []string{"ReplicatedStorage.Shared.Other.spec"}) {
		t.Fatalf("under the root: skip %v of %d", skip, known)
	}

	// an untracked (or changed) sourcemap.json is no reason to run more
	files[filepath.Join(dir, "sourcemap.json")] = true
	if s, _ := NewChanges(m, files).Skipped("ReplicatedStorage.Shared"); len(s) != 1 {
		t.Fatalf("with the map new, skipped %v", s)
	}
	// a changed project file may map anything anew, a changed wally.lock
	// brings other packages: all run
	for _, f := range []string{"default.project.json", "wally.lock"} {
		all := map[string]bool{filepath.Join(dir, f): true}
		if s, _ := NewChanges(m, all).Skipped("ReplicatedStorage.Shared"); len(s) != 0 {
			t.Fatalf("with %s changed, skipped %v", f, s)
		}
	}
}

// Without a source map no require resolves: only a spec that requires
// nothing and did not change is skipped.
func TestChangedSinceWithoutAMap(t *testing.T) {
	dir := changedFixture(t)
	files, err := ChangedFiles(context.Background(), dir, "base")
	if err != nil {
		t.Fatal(err)
	}
	c := NewChanges(nil, files)
	for spec, runs := range map[string]bool{"Util": true, "Other": true, "Mine": true, "Dyn": true} {
		if got := !c.SkipFile(filepath.Join(dir, "src", "shared", spec+".spec.luau")); got != runs {
			t.Errorf("%s.spec runs: %v, want %v", spec, got, runs)
		}
	}
	kit.Git(t, dir, "checkout", "-q", "--", "src/shared/Mine.spec.luau")
	if files, err = ChangedFiles(context.Background(), dir, "base"); err != nil {
		t.Fatal(err)
	}
	if !NewChanges(nil, files).SkipFile(filepath.Join(dir, "src", "shared", "Mine.spec.luau")) {
		t.Error("an unchanged spec that requires nothing runs")
	}
}

func TestChangedSinceRefusals(t *testing.T) {
	dir := changedFixture(t)
	for _, tc := range []struct {
		ref, says string
	}{
		{"-p", "is not a git ref"},
		{"", "is not a git ref"},
		{"no-such-branch", "git cannot compare with it"},
	} {
		_, err := ChangedFiles(context.Background(), dir, tc.ref)
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ref %q: %v, want a usage error saying %q", tc.ref, err, tc.says)
		}
	}
	if _, err := ChangedFiles(context.Background(), t.TempDir(), "base"); err == nil || !strings.Contains(err.Error(), "not in a git work tree") {
		t.Errorf("outside a repository: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := ChangedFiles(context.Background(), dir, "base")
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "git is not on PATH") {
		t.Errorf("without git: %v", err)
	}
}

// Each require chain resolves to its instance, or does not resolve.
func TestRequireChains(t *testing.T) {
	m, err := sourcemap.Load(filepath.Join("testdata", "changed", "sourcemap.json"))
	if err != nil {
		t.Fatal(err)
	}
	const self = "ReplicatedStorage.Shared.Util.spec"
	for _, tc := range []struct {
		src        string
		want       []string
		unresolved bool
	}{
		{`local U = require(script.Parent.Util)`, []string{"ReplicatedStorage.Shared.Util"}, false},
		{`require(script.Parent.Parent.Shared["Other"])`, []string{"ReplicatedStorage.Shared.Other"}, false},
		{`local RS = game:GetService("ReplicatedStorage")
local Shared = RS:WaitForChild("Shared", 5)
local C = require(Shared:FindFirstChild("Chain"))`, []string{"ReplicatedStorage.Shared.Chain"}, false},
		{`require(game.ReplicatedStorage.Shared.Util) -- require(script.Nope)
--[[ require(script.Nope) ]] local s = "require(script.Nope)"`, []string{"ReplicatedStorage.Shared.Util"}, false},
		{`local n = "Util" require(script.Parent[n])`, nil, true},
		{`require("./Util")`, nil, true},
		{`local RS = game:GetService("ReplicatedStorage") or nil require(RS.Shared.Util)`, nil, true},
		{`local X = script.Parent X = workspace require(X.Util)`, nil, true},
		{`local r = require`, nil, true},
		{`if a == script then end`, nil, false},
	} {
		r := resolver{m: m, script: self, aliases: map[string][]token{}}
		got, unresolved := r.requires(scan(tc.src))
		if !slices.Equal(got, tc.want) || unresolved != tc.unresolved {
			t.Errorf("%s:\n got %v unresolved=%v\nwant %v unresolved=%v", tc.src, got, unresolved, tc.want, tc.unresolved)
		}
	}
}
