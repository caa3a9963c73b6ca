package commands

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands/testrun"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

func fixtureMap(t *testing.T) *sourcemap.Map {
	t.Helper()
	m, err := sourcemap.Load(filepath.Join("..", "test", "emulator", "testdata", "rojo", sourcemap.FileName))
	if err != nil {
		t.Fatal(err)
	}
	m.Prefix = ""
	return m
}

// The plugin's INSTANCE_NOT_FOUND for an instance the source map lists
// says the map is stale (same code and details); anything else is left as
// it came.
func TestNotInStudio(t *testing.T) {
	m := fixtureMap(t)
	details := json.RawMessage(`{"resolvedPath":"ReplicatedStorage.Shared","missingSegment":"Inner"}`)
	notFound := func(path string) error {
		return &protocol.Error{Code: protocol.CodeInstanceNotFound, Message: "No instance found at path: " + path, Details: details}
	}
	other := errors.New("boom")
	for _, tc := range []struct {
		name  string
		m     *sourcemap.Map
		err   error
		paths []string
		stale bool
	}{
		{"a mapped script", m, notFound("ReplicatedStorage.Shared.Inner"), []string{"ReplicatedStorage.Shared.Inner"}, true},
		{"game. prefix", m, notFound("ReplicatedStorage.Shared.Inner"), []string{"game.ReplicatedStorage.Shared.Inner"}, true},
		{"a batch: the edit the plugin named", m, notFound("ReplicatedStorage.Shared.Outer"), []string{"ServerScriptService.Other", "ReplicatedStorage.Shared.Outer"}, true},
		{"a batch whose missing script is unmapped", m, notFound("ServerScriptService.Other"), []string{"ServerScriptService.Other", "ReplicatedStorage.Shared.Outer"}, false},
		{"an unmapped script", m, notFound("Workspace.Thing"), []string{"Workspace.Thing"}, false},
		{"no map", nil, notFound("ReplicatedStorage.Shared.Inner"), []string{"ReplicatedStorage.Shared.Inner"}, false},
		{"another code", m, &protocol.Error{Code: protocol.CodeNotAScript, Message: "x"}, []string{"ReplicatedStorage.Shared.Inner"}, false},
		{"not a protocol error", m, other, []string{"ReplicatedStorage.Shared.Inner"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := notInStudio(tc.m, tc.err, tc.paths...)
			if !tc.stale {
				if got != tc.err {
					t.Fatalf("got %v, want the error as it came", got)
				}
				return
			}
			var perr *protocol.Error
			if !errors.As(got, &perr) || perr.Code != protocol.CodeInstanceNotFound || string(perr.Details) != string(details) {
				t.Fatalf("got %#v, want INSTANCE_NOT_FOUND with its details", got)
			}
			if !strings.HasPrefix(perr.Message, tc.err.Error()+"; the source map") || !strings.Contains(perr.Message, "Studio has no such instance") ||
				!strings.Contains(perr.Message, "rojo sourcemap") || Hint(got) == "" {
				t.Fatalf("message %q", perr.Message)
			}
		})
	}
}

// test's missing root: a synced spec or a mapped --root is a stale map,
// named by file; no message names a mount.
func TestRootMissing(t *testing.T) {
	m := fixtureMap(t)
	for _, tc := range []struct {
		name string
		args TestArgs
		want []string
	}{
		{"synced spec", TestArgs{synced: &testrun.Synced{File: "src/shared/util/Gone.spec.luau", Path: "ReplicatedStorage.Shared.util.Strings.spec", Parent: "ReplicatedStorage.Shared.util"}},
			[]string{"test: cannot run src/shared/util/Gone.spec.luau: the source map", "lists ReplicatedStorage.Shared.util.Strings.spec (from src/shared/util/Strings.spec.luau)", "Studio has no such instance"}},
		{"mapped --root", TestArgs{Root: "ReplicatedStorage.Shared.util"},
			[]string{"test: --root ReplicatedStorage.Shared.util: no such instance in the place; the source map", "with ReplicatedStorage.Shared.util.Strings from src/shared/util/Strings.luau"}},
		{"unmapped --root", TestArgs{Root: "ServerStorage.Tests"}, []string{"test: --root ServerStorage.Tests: no such instance in the place"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rootMissing(m, &tc.args)
			var ue UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("%v is not a usage error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testrun.MountPrefix) {
				t.Errorf("%q names a mount", err)
			}
		})
	}
	if err := rootMissing(m, &TestArgs{Root: "ServerStorage.Tests"}); strings.Contains(err.Error(), "source map") {
		t.Errorf("an unmapped root blames the map: %v", err)
	}
}
