package kit

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git with args in dir and returns its output; a failure fails
// the test. The commits it makes have a fixed author, whatever the
// machine's git config says.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=studio-bridge tests", "-c", "user.email=tests@studio-bridge.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// GitRepo writes files (as Files does) into a new git repository with one
// commit of all of them, and returns its folder.
func GitRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := Files(tb, files)
	Git(tb, dir, "init", "-q")
	Git(tb, dir, "add", "-A")
	Git(tb, dir, "commit", "-q", "-m", "base")
	return dir
}

// ReadTree reads every file under dir into a map for Files or GitRepo:
// slash-separated paths relative to dir.
func ReadTree(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		tb.Fatalf("read %s: %v", dir, err)
	}
	return out
}
