package kit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFiles: files with their content, empty files, empty directories and
// files in directories that nothing else makes.
func TestFiles(t *testing.T) {
	dir := Files(t, map[string]string{"notes.txt": "x", "empty.rbxlx": "", "Obby.rbxl/": "", "a/b/c.lua": "print(1)"})
	for name, want := range map[string]string{"notes.txt": "x", "empty.rbxlx": "", "a/b/c.lua": "print(1)"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "Obby.rbxl")); err != nil || !st.IsDir() {
		t.Errorf("Obby.rbxl/: %v, %v; want a directory", st, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 4 {
		t.Errorf("%d entries (%v); want notes.txt, empty.rbxlx, Obby.rbxl and a", len(entries), err)
	}
}
