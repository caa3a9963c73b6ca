//go:build !windows

package testrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// A project reached through a symlink (macOS's /tmp is /private/tmp): git
// names the real paths, the map the linked ones; a changed module still
// makes its specs run, and an unchanged spec is still skipped.
func TestChangedSinceThroughASymlink(t *testing.T) {
	dir := changedFixture(t)
	link := filepath.Join(t.TempDir(), "project")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	files, err := ChangedFiles(context.Background(), link, "base")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sourcemap.Load(filepath.Join(link, "sourcemap.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewChanges(m, files)
	if c.SkipFile(filepath.Join(link, "src", "shared", "Util.spec.luau")) {
		t.Error("Util.spec requires a changed module, reached through a link: it must run")
	}
	if !c.SkipFile(filepath.Join(link, "src", "shared", "Other.spec.luau")) {
		t.Error("Other.spec is unchanged: it is skipped through a link too")
	}
}
