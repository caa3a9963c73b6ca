package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunkName(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("folder/", 20) + "deep/nested.luau"
	tests := []struct{ name, in, want string }{
		{"relative path", "scripts/nested.luau", "scripts/nested.luau"},
		{"cleaned", "./scripts/../scripts/nested.luau", "scripts/nested.luau"},
		{"absolute inside the working directory", filepath.Join(wd, "scripts", "run.luau"), "scripts/run.luau"},
		{"long path keeps its end from a folder boundary", long, "…/" + strings.Repeat("folder/", 11) + "deep/nested.luau"},
		{"control characters dropped", "a\x01b.luau", "ab.luau"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ChunkName(tc.in)
			if got != tc.want {
				t.Fatalf("ChunkName(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if len(got) > MaxChunkName || !utf8.ValidString(got) {
				t.Fatalf("%q: %d bytes or not UTF-8", got, len(got))
			}
		})
	}
	// a long multi-byte name is cut on a rune boundary
	got := ChunkName(strings.Repeat("é", 80) + ".luau")
	if len(got) > MaxChunkName || !utf8.ValidString(got) || !strings.HasSuffix(got, "é.luau") || !strings.HasPrefix(got, "…") {
		t.Fatalf("multi-byte: %q (%d bytes)", got, len(got))
	}
	if !strings.HasSuffix(ChunkName(long), "/deep/nested.luau") {
		t.Fatalf("the file name is lost: %q", ChunkName(long))
	}
}
