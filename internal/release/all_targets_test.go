//go:build releasetest

package release

import (
	"context"
	"path/filepath"
	"testing"
)

// TestAllTargets builds the release as `task release` does, all six
// binaries for real (minutes, hence behind the releasetest build tag; the
// release workflow runs it before publishing), and checks every archive:
// its one binary is PE, Mach-O or ELF for its architecture; the one for
// this machine runs (--version, install-plugin --dir). Then it packs and
// installs all the npm packages offline and runs the binary through npx.
//
//	go test -tags releasetest -run TestAllTargets -timeout 30m ./internal/release/
func TestAllTargets(t *testing.T) {
	host := hostTarget(t)
	lookPath(t, "npm")
	v, err := ParseVersion("0.0.0-test.1")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Build(context.Background(), Options{Version: v, Out: out, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	checkSums(t, res.Sums, res.Archives)
	for i, tg := range Targets {
		exe := unzipOnly(t, res.Archives[i], tg, t.TempDir())
		checkFormat(t, exe, tg)
		if tg == host {
			runBinary(t, exe, v.Full)
		}
		checkPlatformPackage(t, NPMDir(out, tg.NPMName()), tg, v.NPM)
		checkFormat(t, filepath.Join(NPMDir(out, tg.NPMName()), "bin", tg.Exe()), tg)
	}
	checkMainPackage(t, NPMDir(out, NPMPackage), Targets, v.NPM)
	project := npmInstall(t, res.NPM, host)
	checkNPX(t, project, v.Full)
	checkShimSignal(t, project)
}

// testLog writes Build's progress lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
