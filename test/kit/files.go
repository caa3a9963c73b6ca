package kit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files writes a tree of files into a new temporary directory of the test
// and returns the directory. Each key of files is a slash-separated path
// inside it and its value the file's content; a path ending in "/" is an
// empty directory. Parent directories are made as needed.
func Files(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}
