package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadScript tells code from paths, reads files and standard input, and
// refuses what is no script, saying why.
func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("ok.luau", []byte("print(1)\n"))
	empty := write("empty.luau", []byte("  \n"))
	binary := write("bin.luau", []byte{0x7f, 'E', 'L', 'F', 0})
	parens := write("run(1).luau", []byte("print(2)\n"))
	equals := write("a=b.luau", []byte("print(3)\n"))
	noSuffix := write("ci-script", []byte("print(4)\n"))
	t.Chdir(dir)
	spaced := filepath.Join(dir, "dir x")
	if err := os.Mkdir(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg, stdin, want, err string
	}{
		{arg: "print(1)", want: "print(1)"},
		{arg: good, want: "print(1)\n"},
		{arg: "-", stdin: "return 2", want: "return 2"},
		{arg: "-", stdin: "", err: "standard input is empty"},
		{arg: filepath.Join(dir, "missing.luau"), err: "does not exist"},
		{arg: empty, err: "is empty"},
		{arg: parens, want: "print(2)\n"},
		{arg: equals, want: "print(3)\n"},
		{arg: noSuffix, want: "print(4)\n"},
		{arg: "./nope", err: "does not exist"},
		{arg: "scripts/missing.lua.txt", err: "does not exist"},
		{arg: `scripts\missing`, err: "does not exist"},
		{arg: dir, err: "is a directory"},
		{arg: "x=1/2", want: "x=1/2"},
		{arg: "print(1/2)", want: "print(1/2)"},
		{arg: "return", want: "return"},
		{arg: "missing", err: `"missing" is not a file here, and a lone name is no Luau statement: did you mean a file? Give a path that exists (e.g. ./missing.luau)`},
		{arg: "Workspace.Part", err: "did you mean a file?"},
		{arg: "build-all", err: "did you mean a file?"},
		{arg: "ci-script", want: "print(4)\n"}, // a lone name that is a file here is read
		{arg: "game.Workspace:ClearAllChildren()", want: "game.Workspace:ClearAllChildren()"},
		{arg: "print'a/b'", want: "print'a/b'"},
		{arg: "local s = [[\n]] .. x.lua", want: "local s = [[\n]] .. x.lua"},
		{arg: "print(1) --see a.lua", want: "print(1) --see a.lua"},
		{arg: "x=1 return x.lua", want: "x=1 return x.lua"},
		{arg: "my scripts/missing test.luau", err: "does not exist"},
		{arg: spaced, err: "is a directory"},
		{arg: binary, err: "not UTF-8 text"},
	}
	for _, tt := range tests {
		got, err := LoadScript(tt.arg, strings.NewReader(tt.stdin))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.arg, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %q, %v", tt.arg, got, err)
		}
	}
}
