package release

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// hostBuild compiles the binary for this machine with the test kit's flags
// (test/kit: static, urfave_cli_no_docs), so that it reuses the build cache
// of the other tests and only links anew with the version; every other
// target gets a stand-in, which npm must leave out by its os and cpu.
func hostBuild(host Target) func(context.Context, Target, Version, string) error {
	return func(ctx context.Context, t Target, v Version, path string) error {
		if t != host {
			return standIn(ctx, t, v, path)
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "urfave_cli_no_docs",
			"-ldflags", "-X main.version="+v.Full, "-o", path, "github.com/studio-bridge/studio-bridge/cmd/studio-bridge")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return &buildError{err: err, out: string(out)}
		}
		return nil
	}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// TestHostRelease builds a release whose binary for this machine is real:
// its archive unpacks to a binary of the right format that runs (--version,
// install-plugin --dir), and the npm packages, packed and installed
// offline, run it through npx and pass exit codes and Ctrl-C through.
// all_targets_test.go does the same for all six real builds
// (go test -tags releasetest).
func TestHostRelease(t *testing.T) {
	kit.SkipIfShort(t, "builds a release of the binary and runs npm")
	host := hostTarget(t)
	lookPath(t, "npm") // before the build: say at once what is missing
	v, err := ParseVersion("0.0.0-test.1")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Build(context.Background(), Options{Version: v, Out: out, Compile: hostBuild(host)})
	if err != nil {
		t.Fatal(err)
	}
	exe := unzipOnly(t, filepath.Join(out, host.ArchiveName(v.Full)), host, t.TempDir())
	checkFormat(t, exe, host)
	runBinary(t, exe, v.Full)

	project := npmInstall(t, res.NPM, host)
	checkNPX(t, project, v.Full)
	checkShimSignal(t, project)

	// Without its platform package (--omit=optional) the shim says which
	// package to add, and how.
	if err := os.RemoveAll(filepath.Join(project, "node_modules", filepath.FromSlash(host.NPMName()))); err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(project, "node_modules", "@studio-bridge", "cli", "bin", "studio-bridge.js")
	r := kit.Run(t, time.Minute, kit.Options{}, nodePath(t), shim, "--version")
	if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, host.NPMName()+"@"+v.NPM+", the package with the binary for "+host.NPMOS+"-"+host.NPMCPU+", is not installed") ||
		!strings.Contains(r.Stderr, "--omit=optional") {
		t.Errorf("the shim without its platform package: exit %d, stdout %q, stderr %q; want exit 1 naming %s and --omit=optional", r.Code, r.Stdout, r.Stderr, host.NPMName())
	}
}
