package sourcemap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fakeRojoEnv = "SOURCEMAP_TEST_FAKE_ROJO"

// TestMain lets the test binary stand in for rojo: with fakeRojoEnv set it
// answers `rojo sourcemap PROJECT --output FILE` by writing a one-script map.
func TestMain(m *testing.M) {
	if os.Getenv(fakeRojoEnv) == "1" {
		a := os.Args[1:]
		if len(a) != 4 || a[0] != "sourcemap" || a[2] != "--output" {
			fmt.Fprintln(os.Stderr, "fake rojo: unexpected arguments", a)
			os.Exit(2)
		}
		if _, err := os.Stat(a[1]); err != nil {
			fmt.Fprintln(os.Stderr, "fake rojo:", err)
			os.Exit(1)
		}
		err := os.WriteFile(a[3], []byte(`{"name":"P","className":"DataModel","children":[{"name":"ServerScriptService","className":"ServerScriptService","children":[{"name":"Main","className":"Script","filePaths":["src/Main.server.luau"]}]}]}`), 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake rojo:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// project makes a Rojo project folder: default.project.json mapping src/,
// src/Main.server.luau, and (with a map) an old sourcemap.json.
func project(t *testing.T, withMap bool) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("default.project.json", `{"name":"P","tree":{"$className":"DataModel","ServerScriptService":{"$path":"src"}}}`)
	write("src/Main.server.luau", "print(1)")
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"default.project.json", "src/Main.server.luau", "src"} {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if withMap {
		write(FileName, `{"name":"P","className":"DataModel","children":[{"name":"ServerScriptService","className":"ServerScriptService","children":[{"name":"Main","className":"Script","filePaths":["src/Main.server.luau"]}]}]}`)
	}
	return dir
}

func noEnv(string) string { return "" }

func fakeRojo(t *testing.T) func(string) (string, error) {
	t.Setenv(fakeRojoEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(string) (string, error) { return exe, nil }
}

func noRojo(string) (string, error) { return "", errors.New("not found") }

func TestDiscover(t *testing.T) {
	ctx := context.Background()

	t.Run("a folder that is no Rojo project has no map and no hint", func(t *testing.T) {
		f, err := Discover(ctx, Options{Root: t.TempDir(), Getenv: noEnv})
		if err != nil || f.Map != nil || f.Hint != "" {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
	})

	t.Run("a project without a map says how to make one", func(t *testing.T) {
		f, err := Discover(ctx, Options{Root: project(t, false), Getenv: noEnv, LookPath: noRojo})
		if err != nil || f.Map != nil {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
		for _, want := range []string{"rojo sourcemap default.project.json --output sourcemap.json", "--watch", "--rojo"} {
			if !strings.Contains(f.Hint, want) {
				t.Errorf("hint %q lacks %q", f.Hint, want)
			}
		}
	})

	t.Run("the map in the root is found and fresh", func(t *testing.T) {
		f, err := Discover(ctx, Options{Root: project(t, true), Getenv: noEnv})
		if err != nil || f.Map == nil || f.Hint != "" || len(f.Missing) != 0 {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
		if e, ok := f.Map.Entry("ServerScriptService.Main"); !ok || e.File != "src/Main.server.luau" {
			t.Errorf("entry %+v", e)
		}
		// what a stale map's report names: the map, and how to remake it
		if f.Map.File != f.File || f.Map.Remake != "rojo sourcemap default.project.json --output sourcemap.json" {
			t.Errorf("File %q, Remake %q", f.Map.File, f.Map.Remake)
		}
	})

	t.Run("a map older than a mapped folder is stale", func(t *testing.T) {
		dir := project(t, true)
		old := time.Now().Add(-30 * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, FileName), old, old); err != nil {
			t.Fatal(err)
		}
		// a file added under src/ changes the folder's time
		if err := os.WriteFile(filepath.Join(dir, "src", "New.luau"), []byte("return 1"), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Discover(ctx, Options{Root: dir, Getenv: noEnv})
		if err != nil || f.Map == nil {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
		if !strings.Contains(f.Hint, "older than src") || !strings.Contains(f.Hint, "rojo sourcemap default.project.json --output sourcemap.json") {
			t.Errorf("hint %q", f.Hint)
		}
	})

	t.Run("--rojo regenerates a missing map", func(t *testing.T) {
		dir := project(t, false)
		f, err := Discover(ctx, Options{Root: dir, Getenv: noEnv, Rojo: true, LookPath: fakeRojo(t)})
		if err != nil || f.Map == nil {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
		if !strings.Contains(f.Hint, "regenerated") {
			t.Errorf("hint %q", f.Hint)
		}
		if _, ok := f.Map.Entry("ServerScriptService.Main"); !ok {
			t.Error("the regenerated map was not loaded")
		}
	})

	t.Run("--rojo without rojo on PATH says so", func(t *testing.T) {
		f, err := Discover(ctx, Options{Root: project(t, false), Getenv: noEnv, Rojo: true, LookPath: noRojo})
		if err != nil || f.Map != nil || !strings.Contains(f.Hint, "rojo is not on PATH") {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
	})

	t.Run("a named map that does not exist is an error naming its source", func(t *testing.T) {
		_, err := Discover(ctx, Options{Flag: filepath.Join(t.TempDir(), "nope.json"), Getenv: noEnv})
		if err == nil || !strings.Contains(err.Error(), "--sourcemap") {
			t.Fatalf("err %v", err)
		}
		_, err = Discover(ctx, Options{Getenv: func(k string) string {
			if k == EnvVar {
				return filepath.Join(t.TempDir(), "nope.json")
			}
			return ""
		}})
		if err == nil || !strings.Contains(err.Error(), EnvVar) {
			t.Fatalf("err %v", err)
		}
	})

	t.Run("the flag beats the environment and the root", func(t *testing.T) {
		dir := project(t, true)
		f, err := Discover(ctx, Options{Flag: filepath.Join(dir, FileName), Root: t.TempDir(), Getenv: func(string) string { return "/nonexistent" }})
		if err != nil || f.Map == nil || f.File != filepath.Join(dir, FileName) {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
	})

	t.Run("mapped files missing on disk are reported", func(t *testing.T) {
		dir := project(t, true)
		if err := os.Remove(filepath.Join(dir, "src", "Main.server.luau")); err != nil {
			t.Fatal(err)
		}
		f, err := Discover(ctx, Options{Root: dir, Getenv: noEnv})
		if err != nil || len(f.Missing) != 1 || f.Missing[0] != "src/Main.server.luau" {
			t.Fatalf("Discover = %+v, %v", f, err)
		}
		if !strings.Contains(f.MissingNote(), "src/Main.server.luau") {
			t.Errorf("note %q", f.MissingNote())
		}
	})

	t.Run("a broken map is an error", func(t *testing.T) {
		dir := project(t, false)
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Discover(ctx, Options{Root: dir, Getenv: noEnv}); err == nil || !strings.Contains(err.Error(), "not a Rojo source map") {
			t.Fatalf("err %v", err)
		}
	})
}
