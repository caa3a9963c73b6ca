package release

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// standIn "compiles" a target by writing a file that names it, so that the
// layout can be checked without six real builds.
func standIn(_ context.Context, t Target, v Version, path string) error {
	return os.WriteFile(path, []byte("stand-in studio-bridge "+v.Full+" for "+t.Name()), 0o755)
}

func TestBuildLayout(t *testing.T) {
	out := t.TempDir()
	v, err := ParseVersion("v1.2.3-rc.1+abc")
	if err != nil {
		t.Fatal(err)
	}
	date := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var log strings.Builder
	res, err := Build(context.Background(), Options{Version: v, Out: out, Date: date, Log: &log, Compile: standIn})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Archives) != len(Targets) || len(res.NPM) != len(Targets)+1 {
		t.Fatalf("Build wrote %d archives and %d npm packages, want %d and %d", len(res.Archives), len(res.NPM), len(Targets), len(Targets)+1)
	}
	for i, tg := range Targets {
		if want := filepath.Join(out, "studio-bridge-1.2.3-rc.1+abc-"+tg.OS+"-"+tg.Arch+".zip"); res.Archives[i] != want {
			t.Errorf("archive %d = %s, want %s", i, res.Archives[i], want)
		}
		exe := unzipOnly(t, res.Archives[i], tg, t.TempDir())
		if got, _ := os.ReadFile(exe); string(got) != "stand-in studio-bridge 1.2.3-rc.1+abc for "+tg.Name() {
			t.Errorf("%s holds %q, not the binary built for it", res.Archives[i], got)
		}
		checkPlatformPackage(t, NPMDir(out, tg.NPMName()), tg, "1.2.3-rc.1")
		if !strings.Contains(log.String(), tg.Name()) {
			t.Errorf("the progress log never names %s:\n%s", tg.Name(), log.String())
		}
	}
	checkSums(t, res.Sums, res.Archives)
	checkMainPackage(t, NPMDir(out, NPMPackage), Targets, "1.2.3-rc.1")

	// A second run over the same folder rewrites it to the same archives.
	sums, _ := os.ReadFile(res.Sums)
	if _, err := Build(context.Background(), Options{Version: v, Out: out, Date: date, Compile: standIn}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(res.Sums); string(again) != string(sums) {
		t.Errorf("a rebuild of the same inputs changed the sums:\n%s\nthen\n%s", sums, again)
	}
}

func TestBuildErrors(t *testing.T) {
	v, _ := ParseVersion("1.0.0")
	failing := func(context.Context, Target, Version, string) error { return io.ErrUnexpectedEOF }
	_, err := Build(context.Background(), Options{Version: v, Out: t.TempDir(), Compile: failing})
	if err == nil || !strings.Contains(err.Error(), "build for windows-x86_64") {
		t.Errorf("a failed compile: %v; want an error naming the target", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, Options{Version: v, Out: t.TempDir(), Compile: standIn}); err != context.Canceled {
		t.Errorf("a cancelled build: %v, want context.Canceled", err)
	}
	if _, err := Build(context.Background(), Options{Version: v, Compile: standIn}); err == nil {
		t.Error("Build without an output folder succeeded")
	}
}

// unzipOnly checks that the archive holds exactly the target's binary at
// its root, executable, and extracts it into dir; it returns its path.
func unzipOnly(t *testing.T, archive string, tg Target, dir string) string {
	t.Helper()
	zr, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 1 || zr.File[0].Name != tg.Exe() {
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		t.Fatalf("%s holds %q, want only %q (Foreman installs the first file; Rokit and Aftman look for %s)", archive, names, tg.Exe(), tg.Exe())
	}
	f := zr.File[0]
	if f.Mode().Perm() != 0o755 || !f.Mode().IsRegular() {
		t.Errorf("%s: %s has mode %v, want -rwxr-xr-x", archive, f.Name, f.Mode())
	}
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	path := filepath.Join(dir, f.Name)
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, rc); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var sumLine = regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)

// checkSums checks the sums file: one "<sha256>  <name>" line per archive,
// matching the archive's bytes.
func checkSums(t *testing.T, sums string, archives []string) {
	t.Helper()
	f, err := os.Open(sums)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := sumLine.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("%s: line %q is not `<sha256>  <file>`", sums, sc.Text())
		}
		got[m[2]] = m[1]
	}
	if len(got) != len(archives) {
		t.Errorf("%s lists %d files, want the %d archives", sums, len(got), len(archives))
	}
	for _, a := range archives {
		want, err := FileSHA256(a)
		if err != nil {
			t.Fatal(err)
		}
		if got[filepath.Base(a)] != want {
			t.Errorf("%s: %s is %q, want %s", sums, filepath.Base(a), got[filepath.Base(a)], want)
		}
	}
}

type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Bin                  map[string]string `json:"bin"`
	OS                   []string          `json:"os"`
	CPU                  []string          `json:"cpu"`
	Files                []string          `json:"files"`
	Scripts              map[string]string `json:"scripts"`
	Dependencies         map[string]string `json:"dependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

func readPackageJSON(t *testing.T, dir string) packageJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p packageJSON
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s/package.json: %v", dir, err)
	}
	return p
}

func checkPlatformPackage(t *testing.T, dir string, tg Target, version string) {
	t.Helper()
	p := readPackageJSON(t, dir)
	want := packageJSON{Name: tg.NPMName(), Version: version, OS: []string{tg.NPMOS}, CPU: []string{tg.NPMCPU}, Files: []string{"bin/"}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("%s/package.json = %+v, want %+v", dir, p, want)
	}
	st, err := os.Stat(filepath.Join(dir, "bin", tg.Exe()))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		t.Errorf("%s: the binary has mode %v, want 0755", dir, st.Mode())
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Error(err)
	}
}

func checkMainPackage(t *testing.T, dir string, targets []Target, version string) {
	t.Helper()
	p := readPackageJSON(t, dir)
	deps := map[string]string{}
	for _, tg := range targets {
		deps[tg.NPMName()] = version
	}
	want := packageJSON{Name: NPMPackage, Version: version, Bin: map[string]string{"studio-bridge": "bin/studio-bridge.js"},
		Files: []string{"bin/"}, OptionalDependencies: deps}
	// No scripts at all: in particular no postinstall that downloads.
	if !reflect.DeepEqual(p, want) {
		t.Errorf("%s/package.json = %+v, want %+v", dir, p, want)
	}
	shim, err := os.ReadFile(filepath.Join(dir, "bin", "studio-bridge.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(shim), "#!/usr/bin/env node\n") || strings.Contains(string(shim), "{{") {
		t.Errorf("the shim does not start with a node #! line or has template text left:\n%.300s", shim)
	}
	for _, tg := range targets {
		if !strings.Contains(string(shim), `"`+tg.NPMOS+"-"+tg.NPMCPU+`":"`+tg.NPMName()+`"`) {
			t.Errorf("the shim does not map %s-%s to %s", tg.NPMOS, tg.NPMCPU, tg.NPMName())
		}
	}
	if out, err := exec.Command("node", "--check", filepath.Join(dir, "bin", "studio-bridge.js")).CombinedOutput(); err != nil {
		t.Errorf("node --check on the shim: %v\n%s", err, out)
	}
}
