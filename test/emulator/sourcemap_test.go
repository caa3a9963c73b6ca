package emulator_test

// Locations as files, end to end: `studio-bridge exec FILE` names the chunk
// after the file and returns the traceback of a runtime error raised two
// requires deep in the Rojo fixture project (testdata/rojo) synced into the
// place with --place-project.

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestExecFileErrorTraceback(t *testing.T) {
	const instance = "E2E-SOURCEMAP"
	port, _, b := startWindow(t, "--instance", instance, "--quiet", "--place-project", filepath.Join("testdata", "rojo", "default.project.json"))
	waitSessions(t, b, instance, protocol.ContextEdit)

	stdout, stderr, code := cliIn(t, filepath.Join(emulatorD, "testdata", "rojo"), port, "--json", "exec", "scripts/nested.luau")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a script error)\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	var res struct {
		Success   bool   `json:"success"`
		Error     string `json:"error"`
		Traceback string `json:"traceback"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if res.Success || res.Error != "ReplicatedStorage.Shared.Inner:5: attempt to index nil with 'field'" {
		t.Errorf("result %+v", res)
	}
	// every frame: the module that raised, the module that called it, the
	// script file itself (its chunk is named after the file)
	want := "ReplicatedStorage.Shared.Inner:5 function read\nReplicatedStorage.Shared.Outer:7 function run\nscripts/nested.luau:2\n"
	if res.Traceback != want {
		t.Errorf("traceback\n got %q\nwant %q", res.Traceback, want)
	}
}

// copyFixture copies the Rojo fixture to a new folder, every file and
// folder an hour old and sourcemap.json newer (as `rojo sourcemap` leaves
// it), so the map is fresh whatever order a checkout wrote the files in.
func copyFixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join(emulatorD, "testdata", "rojo")
	dst := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var dirs []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			dirs = append(dirs, to)
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, data, 0o600); err != nil {
			return err
		}
		if d.Name() == "sourcemap.json" {
			return nil
		}
		return os.Chtimes(to, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// With the project's sourcemap.json every location of an exec error is a
// file; a stale map is reported (and not trusted for the missing file), as
// is a mapped instance Studio lacks; a Rojo project without a map says how
// to make one.
func TestExecErrorLocationsThroughTheSourceMap(t *testing.T) {
	const instance = "E2E-SOURCEMAP-MAP"
	port, _, b := startWindow(t, "--instance", instance, "--quiet", "--place-project", filepath.Join("testdata", "rojo", "default.project.json"))
	waitSessions(t, b, instance, protocol.ContextEdit)

	t.Run("text: files first, the whole traceback", func(t *testing.T) {
		dir := copyFixture(t)
		stdout, stderr, code := cliIn(t, dir, port, "exec", "scripts/nested.luau")
		want := "script error: src/shared/Inner.luau:5: attempt to index nil with 'field'\ntraceback:\n" +
			"  src/shared/Inner.luau:5 function read\n  src/shared/Outer.luau:7 function run\n  scripts/nested.luau:2\n"
		if code != 1 || stdout != "" || !strings.HasSuffix(stderr, want) || strings.Contains(stderr, "note:") {
			t.Fatalf("exit %d\nstdout %q\nstderr %q\nwant it to end %q, with no note", code, stdout, stderr, want)
		}
	})

	t.Run("--json: locations with their files", func(t *testing.T) {
		dir := copyFixture(t)
		stdout, stderr, code := cliIn(t, dir, port, "--json", "exec", "scripts/nested.luau")
		var res struct {
			Locations []struct {
				Path string `json:"path"`
				Line int    `json:"line"`
				File string `json:"file"`
			} `json:"locations"`
		}
		if code != 1 || json.Unmarshal([]byte(stdout), &res) != nil {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		got, _ := json.Marshal(res.Locations)
		want := `[{"path":"ReplicatedStorage.Shared.Inner","line":5,"file":"src/shared/Inner.luau"},` +
			`{"path":"ReplicatedStorage.Shared.Inner","line":5,"file":"src/shared/Inner.luau"},` +
			`{"path":"ReplicatedStorage.Shared.Outer","line":7,"file":"src/shared/Outer.luau"},` +
			`{"path":"scripts/nested.luau","line":2,"file":"scripts/nested.luau"}]`
		if string(got) != want {
			t.Errorf("locations\n got %s\nwant %s", got, want)
		}
	})

	t.Run("logs: a synced script's error line and its stack lines map", func(t *testing.T) {
		dir := copyFixture(t)
		// an error in a thread the script spawned reaches Output (and the log)
		// with Studio's stack lines, not the exec's result
		if _, stderr, code := cliIn(t, dir, port, "exec", `task.spawn(function() require(game:GetService("ReplicatedStorage").Shared.Outer).run(nil) end) task.wait(0.1)`); code != 0 {
			t.Fatalf("exec: exit %d, stderr %q", code, stderr)
		}
		stdout, stderr, code := cliIn(t, dir, port, "logs", "--levels", "Error,Info")
		if code != 0 || !strings.Contains(stdout, "[Error] src/shared/Inner.luau:5: attempt to index nil with 'field'") {
			t.Fatalf("logs: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
		stdout, stderr, code = cliIn(t, dir, port, "--json", "logs", "--levels", "Error")
		var res struct {
			Entries []struct {
				Body      string `json:"body"`
				Locations []struct {
					Path string `json:"path"`
					Line int    `json:"line"`
					File string `json:"file"`
				} `json:"locations"`
			} `json:"entries"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Entries) == 0 {
			t.Fatalf("logs --json: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		last := res.Entries[len(res.Entries)-1]
		if len(last.Locations) != 1 || last.Locations[0].File != "src/shared/Inner.luau" || last.Locations[0].Line != 5 ||
			last.Locations[0].Path != "ReplicatedStorage.Shared.Inner" || !strings.HasPrefix(last.Body, "ReplicatedStorage.Shared.Inner:5:") {
			t.Errorf("last error line %+v", last)
		}
	})

	t.Run("test --root: a synced spec's failure names its file", func(t *testing.T) {
		dir := copyFixture(t)
		d := testRunIn(t, dir, port, 1, "--root", "ReplicatedStorage.Shared")
		checkCases(t, d, map[string]commands.TestCase{
			"Strings › shouts": {Status: "passed", File: "src/shared/util/Strings.spec.luau", InstancePath: "ReplicatedStorage.Shared.util.Strings.spec"},
		})
		tc := byName(d)["counts words wrongly"]
		if tc.Status != "failed" || tc.File != "src/shared/util/Words.spec.luau" || tc.Line != 6 ||
			tc.InstancePath != "ReplicatedStorage.Shared.util.Words.spec" || !strings.HasPrefix(tc.Message, "src/shared/util/Words.spec.luau:6: ") {
			t.Errorf("failed case %+v", tc)
		}
		_, stderr, code := cliIn(t, dir, port, "test", "--root", "ReplicatedStorage.Shared")
		if code != 1 {
			t.Errorf("text run: exit %d, stderr %q", code, stderr)
		}
	})

	t.Run("test of one spec file runs it with its neighbours", func(t *testing.T) {
		dir := copyFixture(t)
		d := testRunIn(t, dir, port, 0, "src/shared/util/Strings.spec.luau")
		if d.Passed != 2 || d.Failed != 0 || len(d.Tests) != 2 {
			t.Fatalf("want Strings.spec's two tests passing (requiring script.Parent.Strings) and Words.spec not run: %+v", d)
		}
		for _, tc := range d.Tests {
			if tc.File != "src/shared/util/Strings.spec.luau" || tc.InstancePath != "ReplicatedStorage.Shared.util.Strings.spec" {
				t.Errorf("case %+v", tc)
			}
		}
	})

	t.Run("test of a synced spec whose file changed names the file out of sync", func(t *testing.T) {
		dir := copyFixture(t)
		spec := filepath.Join(dir, "src", "shared", "util", "Strings.spec.luau")
		data, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(spec, append(data, "-- edited, not yet synced\n"...), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := cliIn(t, dir, port, "test", "src/shared/util/Strings.spec.luau")
		if code != 2 || !strings.Contains(stderr, "src/shared/util/Strings.spec.luau is out of sync") || strings.Contains(stderr, "StudioBridgeTest") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})

	t.Run("script commands: a synced script is read and found as its file, and edited there", func(t *testing.T) {
		dir := copyFixture(t)
		stdout, stderr, code := cliIn(t, dir, port, "script", "read", "ReplicatedStorage.Shared.Inner")
		if code != 0 || !strings.Contains(stdout, "return config.field") || !strings.Contains(stderr, "synced by Rojo from src/shared/Inner.luau") {
			t.Fatalf("read: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
		stdout, stderr, code = cliIn(t, dir, port, "script", "grep", "--literal", "config.field", "--root", "ReplicatedStorage.Shared")
		if code != 0 || !strings.Contains(stdout, "src/shared/Inner.luau:5:") {
			t.Fatalf("grep: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
		// refused, naming the file and the line of the text to change
		_, stderr, code = cliIn(t, dir, port, "script", "edit", "ReplicatedStorage.Shared.Inner", "--find", "config.field", "--replace", "config.other")
		if code == 0 || !strings.Contains(stderr, "is synced by Rojo from src/shared/Inner.luau:5") || !strings.Contains(stderr, "--in-studio") {
			t.Fatalf("edit: exit %d, stderr %q, want SCRIPT_MANAGED naming src/shared/Inner.luau:5", code, stderr)
		}
		stdout, _, _ = cliIn(t, dir, port, "script", "read", "ReplicatedStorage.Shared.Inner")
		if !strings.Contains(stdout, "return config.field") {
			t.Fatalf("the refused edit changed Studio's copy:\n%s", stdout)
		}
		// --in-studio edits it anyway, with a warning; the edit is put back after
		_, stderr, code = cliIn(t, dir, port, "script", "edit", "ReplicatedStorage.Shared.Inner", "--find", "config.field", "--replace", "config.other", "--in-studio")
		if code != 0 || !strings.Contains(stderr, "warning: ReplicatedStorage.Shared.Inner is synced by Rojo from src/shared/Inner.luau") {
			t.Fatalf("edit --in-studio: exit %d, stderr %q", code, stderr)
		}
		if _, stderr, code = cliIn(t, dir, port, "script", "edit", "ReplicatedStorage.Shared.Inner", "--find", "config.other", "--replace", "config.field", "--in-studio"); code != 0 {
			t.Fatalf("putting the edit back: exit %d, stderr %q", code, stderr)
		}
	})

	t.Run("without a map one spec file still runs with its neighbours", func(t *testing.T) {
		dir := copyFixture(t)
		if err := os.Remove(filepath.Join(dir, "sourcemap.json")); err != nil {
			t.Fatal(err)
		}
		d := testRunIn(t, dir, port, 0, "src/shared/util/Strings.spec.luau")
		if d.Passed != 2 || len(d.Tests) != 2 || d.Tests[0].File != "src/shared/util/Strings.spec.luau" || d.Tests[0].InstancePath != "" {
			t.Fatalf("%+v", d)
		}
	})

	t.Run("a stale map is reported and not trusted", func(t *testing.T) {
		dir := copyFixture(t)
		if err := os.Remove(filepath.Join(dir, "src", "shared", "Outer.luau")); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := cliIn(t, dir, port, "exec", "scripts/nested.luau")
		if code != 1 || !strings.Contains(stderr, "note: source map") || !strings.Contains(stderr, "stale") ||
			!strings.Contains(stderr, "src/shared/Outer.luau") || !strings.Contains(stderr, "  ReplicatedStorage.Shared.Outer:7 function run") ||
			!strings.Contains(stderr, "  src/shared/Inner.luau:5 function read") {
			t.Fatalf("exit %d\nstderr %q", code, stderr)
		}
	})

	t.Run("a mapped instance Studio lacks is reported with the map and its file", func(t *testing.T) {
		dir := copyFixture(t)
		mapsMore(t, dir, map[string]string{
			"ReplicatedStorage.Shared.Extra":           "src/shared/Extra.luau",
			"ReplicatedStorage.Shared.util.Extra.spec": "src/shared/util/Extra.spec.luau",
		})
		for _, tc := range []struct {
			name string
			args []string
			code int
			want string
		}{
			{"script read", []string{"script", "read", "ReplicatedStorage.Shared.Extra"}, 1,
				"No instance found at path: game.ReplicatedStorage.Shared.Extra; the source map "},
			{"script edit --in-studio", []string{"script", "edit", "ReplicatedStorage.Shared.Extra", "--find", "1", "--replace", "2", "--in-studio"}, 1,
				"No instance found at path: game.ReplicatedStorage.Shared.Extra; the source map "},
			{"test of the synced spec", []string{"test", "src/shared/util/Extra.spec.luau"}, 2,
				"test: cannot run src/shared/util/Extra.spec.luau: the source map "},
			{"test --root", []string{"test", "--root", "ReplicatedStorage.Shared.Extra"}, 2,
				"test: --root ReplicatedStorage.Shared.Extra: no such instance in the place; the source map "},
			{"script grep --root", []string{"script", "grep", "--literal", "x", "--root", "ReplicatedStorage.Shared.Extra"}, 1,
				"No instance found at path: game.ReplicatedStorage.Shared.Extra; the source map "},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, stderr, code := cliIn(t, dir, port, tc.args...)
				if code != tc.code || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "sourcemap.json lists ReplicatedStorage.Shared.") ||
					!strings.Contains(stderr, "/Extra") || !strings.Contains(stderr, "but Studio has no such instance") ||
					!strings.Contains(stderr, "`rojo sourcemap default.project.json --output sourcemap.json`") || strings.Contains(stderr, "StudioBridgeTest") {
					t.Fatalf("exit %d (want %d)\nstderr %q", code, tc.code, stderr)
				}
			})
		}
		// what Studio has is read as before, and the map's other entries hold
		stdout, stderr, code := cliIn(t, dir, port, "script", "read", "ReplicatedStorage.Shared.Inner")
		if code != 0 || !strings.Contains(stdout, "return config.field") || !strings.Contains(stderr, "synced by Rojo from src/shared/Inner.luau") {
			t.Fatalf("read: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
		// the explicit check: doctor compares the whole map with the window
		c := doctorMapCheck(t, dir, port, instance)
		if c.Status != commands.StatusDegraded || !strings.HasPrefix(c.Detail, "7 of the source map's 9 scripts are in this window; 2 are not: ") ||
			!strings.Contains(c.Detail, "ReplicatedStorage.Shared.Extra (src/shared/Extra.luau)") ||
			!strings.Contains(c.Detail, "ReplicatedStorage.Shared.util.Extra.spec (src/shared/util/Extra.spec.luau)") ||
			!strings.Contains(c.Fix, "rojo sourcemap default.project.json --output sourcemap.json") {
			t.Fatalf("studio.sourceMap %+v", c)
		}
	})

	t.Run("doctor finds every mapped script of a fresh map in the window", func(t *testing.T) {
		c := doctorMapCheck(t, copyFixture(t), port, instance)
		if c.Status != commands.StatusOK || c.Detail != "7 of the source map's 7 scripts are in this window" {
			t.Fatalf("studio.sourceMap %+v", c)
		}
	})

	t.Run("a Rojo project without a map says how to make one", func(t *testing.T) {
		dir := copyFixture(t)
		if err := os.Remove(filepath.Join(dir, "sourcemap.json")); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := cliIn(t, dir, port, "exec", "scripts/nested.luau")
		if code != 1 || strings.Count(stderr, "rojo sourcemap default.project.json --output sourcemap.json") != 2 ||
			!strings.Contains(stderr, "script error: ReplicatedStorage.Shared.Inner:5:") {
			t.Fatalf("exit %d\nstderr %q", code, stderr)
		}
	})
}

// mapsMore adds ModuleScripts to the copied fixture's sourcemap.json (as if
// Rojo had mapped files the place does not have yet), writes their files,
// and leaves the map newer than every folder, so only Studio lacks them.
func mapsMore(t *testing.T, dir string, entries map[string]string) {
	t.Helper()
	file := filepath.Join(dir, "sourcemap.json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	var folders []string
	for path, rel := range entries {
		parts := strings.Split(path, ".")
		if strings.HasSuffix(path, ".spec") {
			parts = append(parts[:len(parts)-2], parts[len(parts)-2]+".spec")
		}
		node := root
		for _, name := range parts[:len(parts)-1] {
			var next map[string]any
			children, _ := node["children"].([]any)
			for _, c := range children {
				if c := c.(map[string]any); c["name"] == name {
					next = c
				}
			}
			if next == nil {
				t.Fatalf("the fixture's map has no %s in %s", name, path)
			}
			node = next
		}
		children, _ := node["children"].([]any)
		node["children"] = append(children, map[string]any{"name": parts[len(parts)-1], "className": "ModuleScript", "filePaths": []string{rel}})
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.WriteFile(to, []byte("return 1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		folders = append(folders, filepath.Dir(to))
	}
	if err := os.WriteFile(file, mustJSON(root), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, f := range folders {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// doctorMapCheck is doctor's studio.sourceMap check of window, run in dir.
func doctorMapCheck(t *testing.T, dir string, port int, window string) commands.Check {
	t.Helper()
	stdout, stderr, code := cliIn(t, dir, port, "--json", "doctor")
	var d commands.DoctorData
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("doctor: exit %d, stdout %q, stderr %q: %v", code, stdout, stderr, err)
	}
	return statusOf(t, d, "studio.sourceMap", window)
}
