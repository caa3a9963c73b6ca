package commands

import (
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxChunkName is the plugin's limit on an exec chunk name, in bytes.
const MaxChunkName = 100

// ChunkName is the chunk name exec sends for a script file, so Studio's
// errors and traceback frames name the file (scripts/nested.luau:2) even
// without a source map: the path relative to the working directory when it
// lies inside it, slash-separated, control characters dropped, and a path
// over MaxChunkName bytes shortened from the left to "…" and its last
// folders and file name (the end is what tells files apart).
func ChunkName(path string) string {
	p := filepath.Clean(path)
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
	}
	p = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, filepath.ToSlash(p))
	if p == "" || p == "." {
		return ""
	}
	return shortenLeft(p, MaxChunkName)
}

// shortenLeft keeps the end of p within max bytes: "…" and the tail,
// starting after a "/" where one falls in the kept part, and never in the
// middle of a UTF-8 sequence.
func shortenLeft(p string, max int) string {
	if len(p) <= max {
		return p
	}
	const ellipsis = "…"
	tail := p[len(p)-(max-len(ellipsis)):]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	if i := strings.IndexByte(tail, '/'); i >= 0 && i < len(tail)-1 {
		tail = tail[i:]
	}
	return ellipsis + tail
}
