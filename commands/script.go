package commands

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxScriptBytes bounds a script; Studio's own source limit is far below.
const MaxScriptBytes = 4 << 20

// LoadScript turns exec's CLI argument into source: "-" reads stdin; an
// existing file is read; so is a missing path, to report it: without
// brackets, quotes or "=", anything ending in .luau or .lua and a single
// word with a / or \ or a leading "."; a lone name ("missing") is neither
// and is refused, asking whether a file was meant; anything else is the
// code itself.
// Files must be non-empty UTF-8 text.
func LoadScript(arg string, stdin io.Reader) (string, error) {
	var data []byte
	var err error
	what := "the script"
	switch {
	case arg == "-":
		what = "standard input"
		data, err = io.ReadAll(io.LimitReader(stdin, MaxScriptBytes+1))
		if err != nil {
			return "", fmt.Errorf("read script from standard input: %w", err)
		}
	case looksLikeFile(arg):
		what = arg
		data, err = os.ReadFile(arg)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("script file %s does not exist", arg)
		case isDir(arg):
			return "", fmt.Errorf("%s is a directory, not a script file", arg)
		case err != nil:
			return "", fmt.Errorf("cannot read script file: %w", err)
		}
	case loneName.MatchString(arg) && arg != "return":
		// never a Luau statement (not a call, not an assignment): most
		// likely a file name without its ending or folder
		return "", fmt.Errorf("%q is not a file here, and a lone name is no Luau statement: did you mean a file? Give a path that exists (e.g. ./%s.luau), or code such as print(%s)", arg, arg, arg)
	default:
		return arg, nil
	}
	switch {
	case len(data) > MaxScriptBytes:
		return "", fmt.Errorf("%s is larger than %d MiB; that is not a script", what, MaxScriptBytes>>20)
	case len(bytes.TrimSpace(data)) == 0:
		return "", fmt.Errorf("%s is empty", what)
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data):
		return "", fmt.Errorf("%s is not UTF-8 text (a binary file?)", what)
	}
	return string(data), nil
}

// loneName is a bare (dotted or dashed) name: "missing", "build-all",
// "Workspace.Part".
var loneName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

func looksLikeFile(arg string) bool {
	if _, err := os.Stat(arg); err == nil {
		return true // a file, whatever its name ("run(1).luau"), or a folder
	}
	// Code has brackets, quotes or "=" (a call or an assignment); a path,
	// even with spaces, rarely does.
	if strings.ContainsAny(arg, "\n()[]{}\"'=,;") {
		return false
	}
	if strings.HasSuffix(arg, ".luau") || strings.HasSuffix(arg, ".lua") {
		return true
	}
	// One word with a path separator or a leading "." is no Luau statement
	// either: a missing path ("./ci/test", "scripts\\run.txt").
	return !strings.ContainsAny(arg, " \t") && (strings.ContainsAny(arg, `/\`) || strings.HasPrefix(arg, "."))
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
