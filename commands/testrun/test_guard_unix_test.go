//go:build !windows

package testrun

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestSpecTreeRefusesLinksOutOfTheProject is issue #22's attack 2: specs
// named *.spec.lua that are symlinks to the victim's secrets (an SSH key,
// the token file), named explicitly or found in a folder, on every
// surface. test refuses them, naming them, and reads nothing of the
// secret; over MCP and in the terminal a path outside the root is refused
// too, while a CLI user may still name one.
func TestSpecTreeRefusesLinksOutOfTheProject(t *testing.T) {
	const secret = "-----BEGIN OPENSSH PRIVATE KEY----- the victim's"
	outside := kit.Files(t, map[string]string{
		".ssh/id_ed25519":       secret,
		"config/token":          secret,
		"mine/theirs.spec.luau": "return function() end",
	})
	root := kit.Files(t, map[string]string{
		"tests/ok.spec.luau":         "return function() end",
		"tests/helper.luau":          "return {}",
		"linked/inside.spec.luau":    "return function() end",
		"walked/fine.spec.luau":      "return function() end",
		"walkedin/fine.spec.luau":    "return function() end",
		"walkedin/target/mod.luau":   "return 1",
		"plain/only.spec.luau":       "return function() end",
		"linkdir/README.md":          "a folder for a link",
		"elsewhere/keep.spec.luau":   "return function() end",
		"linked/target.spec.luau":    "return function() end",
		"walkedin/target/x.spec.lua": "return function() end",
	})
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatalf("symlink: %v", err)
		}
	}
	link(filepath.Join(outside, ".ssh", "id_ed25519"), "tests/key.spec.lua")
	link(filepath.Join(outside, "config", "token"), "walked/token.spec.lua")
	link(filepath.Join(outside, "mine"), "linkdir/out")
	link(filepath.Join(root, "linked", "target.spec.luau"), "linked/alias.spec.luau")
	link(filepath.Join(root, "walkedin", "target", "mod.luau"), "walkedin/alias.luau")
	t.Chdir(root)
	project := func() (string, error) { return root, nil }

	for _, confine := range []bool{false, true} {
		scope := SpecScope{Project: project, Confine: confine}
		for _, tc := range []struct {
			name  string
			paths []string
			says  string // "" = allowed
		}{
			{"a named link to a key", []string{"tests/key.spec.lua"}, "tests/key.spec.lua is a symlink that leads out of the project root"},
			{"a link found in a folder", []string{"walked"}, "token.spec.lua is a symlink that leads out of the project root"},
			{"a linked folder leading out", []string{"linkdir/out"}, "linkdir/out is a symlink that leads out of the project root"},
			{"a link that stays inside", []string{"linked/alias.spec.luau"}, ""},
			{"a folder with a link that stays inside", []string{"walkedin"}, ""},
			{"plain files", []string{"plain"}, ""},
		} {
			t.Run(tc.name+map[bool]string{true: " (confined)", false: " (CLI)"}[confine], func(t *testing.T) {
				nodes, _, _, err := specTree(scope, tc.paths)
				if tc.says == "" {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
				} else if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), tc.says) {
					t.Fatalf("err %v; want it to say %q", err, tc.says)
				}
				var b strings.Builder
				for _, n := range nodes {
					n.luau(&b)
				}
				if strings.Contains(b.String(), secret) {
					t.Fatal("the secret was read into the mount")
				}
			})
		}
	}

	// A path outside the root: a CLI user's choice, refused when confined.
	named := filepath.Join(outside, "mine", "theirs.spec.luau")
	if _, specs, _, err := specTree(SpecScope{Project: project}, []string{named}); err != nil || specs != 1 {
		t.Fatalf("CLI naming a path outside the root: %d specs, %v", specs, err)
	}
	for _, p := range []string{named, "../" + filepath.Base(outside) + "/mine"} {
		_, _, _, err := specTree(SpecScope{Project: project, Confine: true}, []string{p})
		if err == nil || !strings.Contains(err.Error(), "is outside the project root") {
			t.Fatalf("confined, %s: %v", p, err)
		}
	}
	// Confined, a relative path is the project's, wherever the process runs.
	t.Chdir(outside)
	if _, specs, _, err := specTree(SpecScope{Project: project, Confine: true}, []string{"plain"}); err != nil || specs != 1 {
		t.Fatalf("confined relative path: %d specs, %v", specs, err)
	}
}

// TestSpecTreeReadsOnlyRegularFiles: a FIFO named like a spec, named or
// found in a folder, is refused at once (opening it would block forever).
func TestSpecTreeReadsOnlyRegularFiles(t *testing.T) {
	root := kit.Files(t, map[string]string{"tests/ok.spec.luau": "return function() end"})
	if err := syscall.Mkfifo(filepath.Join(root, "tests", "pipe.spec.lua"), 0o600); err != nil {
		t.Fatal(err)
	}
	scope := SpecScope{Project: func() (string, error) { return root, nil }, Confine: true}
	if _, _, _, err := specTree(scope, []string{"tests/pipe.spec.lua"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a named FIFO: %v", err)
	}
	if _, specs, _, err := specTree(scope, []string{"tests"}); err != nil || specs != 1 {
		t.Fatalf("a FIFO in a folder is not a spec: %d specs, %v", specs, err)
	}
}
