package terminal

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestHistoryRoundTrip: a chunk typed over several lines is one entry, it
// survives a restart whole, the line editor recalls it as one line that
// runs the same, and a file from an older version (one line per entry,
// fragments included) still loads.
func TestHistoryRoundTrip(t *testing.T) {
	t.Parallel()
	// the config directory the terminal is given (Options.Auth)
	dir := t.TempDir()
	path := filepath.Join(dir, "terminal_history")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	old := "\"for i = 1, 2 do\"\n\"print(i)\"\n\"end\"\nnot json\n\".state\"\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	h := loadHistory(dir)
	if want := []string{"for i = 1, 2 do", "print(i)", "end", ".state"}; !reflect.DeepEqual(h.lines, want) {
		t.Fatalf("old file: %q, want %q", h.lines, want)
	}
	chunk := "for i = 1, 2 do\n  print(i) -- each\nend"
	h.Add(chunk)
	h.Add("  ")
	h.Add(".logs 5")

	h = loadHistory(dir)
	if want := []string{"for i = 1, 2 do", "print(i)", "end", ".state", chunk, ".logs 5"}; !reflect.DeepEqual(h.lines, want) {
		t.Fatalf("after a restart: %q, want %q", h.lines, want)
	}
	e := editorHistory{h}
	e.Add("print(i)") // the editor's own recording of each line is ignored
	if e.Len() != 6 || e.At(0) != ".logs 5" || e.At(1) != "for i = 1, 2 do   print(i) --[[ each ]] end" {
		t.Fatalf("editor sees %d entries, %q, %q", e.Len(), e.At(0), e.At(1))
	}
}

// TestHistoryReportsAFileItCannotWrite: an entry the history file cannot
// take is reported, and kept in memory all the same.
func TestHistoryReportsAFileItCannotWrite(t *testing.T) {
	t.Parallel()
	h := &history{path: t.TempDir()} // a directory: opening it to append fails
	if err := h.Add("print(1)"); err == nil {
		t.Fatal("writing the history into a directory reported no error")
	}
	if h.Len() != 1 || h.At(0) != "print(1)" {
		t.Fatalf("the entry was not kept in memory: %d entries", h.Len())
	}
}
