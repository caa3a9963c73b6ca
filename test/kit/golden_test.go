package kit

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var _ = flag.Bool("update", false, "rewrite golden files")

// errorsTB records Errorf instead of failing the test.
type errorsTB struct {
	testing.TB
	errors int
}

func (e *errorsTB) Errorf(string, ...any) { e.errors++ }

// TestGolden: equal content passes, different content fails, and -update
// rewrites the file instead.
func TestGolden(t *testing.T) {
	orig := flag.Lookup("update").Value.String()
	t.Cleanup(func() { _ = flag.Set("update", orig) })
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("want\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		got    string
		update bool
		errors int
		file   string
	}{
		{"want\n", false, 0, "want\n"},
		{"other\n", false, 1, "want\n"},
		{"other\n", true, 0, "other\n"},
	} {
		if err := flag.Set("update", strconv.FormatBool(tt.update)); err != nil {
			t.Fatal(err)
		}
		rec := &errorsTB{TB: t}
		Golden(rec, path, []byte(tt.got))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if rec.errors != tt.errors || string(data) != tt.file {
			t.Errorf("got %q, update %v: %d errors and file %q; want %d and %q", tt.got, tt.update, rec.errors, data, tt.errors, tt.file)
		}
	}
}
