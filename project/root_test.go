package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoot(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvVar {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name, flag, env, want, wantErr string
	}{
		{name: "flag wins over env", flag: dir, env: other, want: dir},
		{name: "env when no flag", env: other, want: other},
		{name: "working directory otherwise", want: wd},
		{name: "missing flag folder", flag: filepath.Join(dir, "nope"), wantErr: "(from --project) does not exist"},
		{name: "env names a file", env: file, wantErr: "(from " + EnvVar + ") is a file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Root(tc.flag, env(tc.env))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Root: err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Root = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
