package kit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// exe is the suffix of executables here.
var exe = map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// module is this module's path, the prefix of every package Build builds.
const module = "github.com/studio-bridge/studio-bridge/"

// BuildBinary builds the studio-bridge command into dir as a release is
// built (see Taskfile.yml: static, without urfave/cli's man-page support)
// and returns its path.
func BuildBinary(dir string) (string, error) {
	return build(dir, "cmd/studio-bridge")
}

// build builds the module's package pkg (a path inside the module) into dir
// with the release's flags and returns the executable's path.
func build(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, filepath.Base(pkg)+exe)
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, module+pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &BuildError{Pkg: pkg, Err: err, Output: string(out)}
	}
	return bin, nil
}

// Build builds the module's command pkg (such as "test/bench/floor") as a
// release is built, into the test's temporary directory, and returns its
// path. A failed build fails tb.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	SkipIfShort(tb, "builds and runs "+pkg)
	bin, err := build(tb.TempDir(), pkg)
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// BuildError is a failed build, with the compiler's output.
type BuildError struct {
	Pkg    string
	Err    error
	Output string
}

func (e *BuildError) Error() string {
	return "go build " + e.Pkg + ": " + e.Err.Error() + "\n" + e.Output
}

// The binary is built once per test binary, on first use, so that a run
// that needs no process (go test without -bench in test/bench) builds
// nothing.
var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

// Binary returns the path of a studio-bridge built for this test run,
// building it on the first call. A failed build fails tb.
func Binary(tb testing.TB) string {
	tb.Helper()
	SkipIfShort(tb, "builds and runs the studio-bridge binary")
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "studio-bridge-test-"); buildErr == nil {
			binPath, buildErr = BuildBinary(buildDir)
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return binPath
}

// Main runs the tests and removes the binary Binary built. A package's
// TestMain is `kit.Main(m)`: when TestMain returns, the test binary exits
// with m.Run's code.
func Main(m *testing.M) {
	m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}
