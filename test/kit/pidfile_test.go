package kit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStopPIDFileWithoutAProcess: no file is a wrapper that never ran (no
// error); a file without a pid is an error.
func TestStopPIDFileWithoutAProcess(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pid")
	if err := os.WriteFile(garbage, []byte("not a pid\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path   string
		errors int
	}{
		{filepath.Join(dir, "missing.pid"), 0},
		{garbage, 1},
	} {
		tb := &errorsTB{TB: t}
		if StopPIDFile(tb, tt.path) {
			t.Errorf("%s: reported a process stopped", tt.path)
		}
		if tb.errors != tt.errors {
			t.Errorf("%s: %d errors, want %d", tt.path, tb.errors, tt.errors)
		}
	}
}
