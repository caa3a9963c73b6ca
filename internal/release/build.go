package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Options say what Build makes.
type Options struct {
	Version Version
	Out     string    // the output folder, dist/ for `task release`
	Targets []Target  // the platforms; Targets when empty
	Date    time.Time // the archives' file dates (the commit's time makes them reproducible)
	Log     io.Writer // progress for people, one line per step
	// Compile builds the binary for t into path; GoBuild when nil (tests of
	// the layout give a stand-in).
	Compile func(ctx context.Context, t Target, v Version, path string) error
}

// Result lists what Build wrote, as paths.
type Result struct {
	Archives []string // one per target
	Sums     string
	NPM      []string // the package folders: the main package last
}

// Build builds a release into opt.Out: per target the binary (out/bin/<os>-
// <arch>/), its archive and its npm package, then the sums file and the main
// npm package. Whatever it wrote before an error stays, for a look; a new
// run rewrites it.
func Build(ctx context.Context, opt Options) (*Result, error) {
	if opt.Out == "" {
		return nil, errors.New("release: no output folder")
	}
	targets := opt.Targets
	if len(targets) == 0 {
		targets = Targets
	}
	compile := opt.Compile
	if compile == nil {
		compile = GoBuild
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	date := opt.Date
	if date.IsZero() {
		date = time.Now()
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	res := &Result{}
	for i, t := range targets {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		binDir := filepath.Join(opt.Out, "bin", t.Name())
		if err := os.MkdirAll(binDir, 0o755); err != nil {
			return res, err
		}
		bin := filepath.Join(binDir, t.Exe())
		logf("[%d/%d] %s: go build (GOOS=%s GOARCH=%s)", i+1, len(targets), t.Name(), t.GOOS, t.GOARCH)
		if err := compile(ctx, t, opt.Version, bin); err != nil {
			return res, fmt.Errorf("build for %s: %w", t.Name(), err)
		}
		archive := filepath.Join(opt.Out, t.ArchiveName(opt.Version.Full))
		if err := WriteArchive(archive, bin, t.Exe(), date); err != nil {
			return res, fmt.Errorf("archive for %s: %w", t.Name(), err)
		}
		res.Archives = append(res.Archives, archive)
		dir := NPMDir(opt.Out, t.NPMName())
		if err := os.RemoveAll(dir); err != nil {
			return res, err
		}
		if err := WritePlatformPackage(dir, t, opt.Version, bin); err != nil {
			return res, fmt.Errorf("npm package for %s: %w", t.Name(), err)
		}
		res.NPM = append(res.NPM, dir)
		logf("      %s, npm %s", filepath.Base(archive), t.NPMName())
	}
	res.Sums = filepath.Join(opt.Out, SumsName(opt.Version.Full))
	if err := WriteSums(res.Sums, res.Archives); err != nil {
		return res, fmt.Errorf("sums: %w", err)
	}
	dir := NPMDir(opt.Out, NPMPackage)
	if err := os.RemoveAll(dir); err != nil {
		return res, err
	}
	if err := WriteMainPackage(dir, targets, opt.Version); err != nil {
		return res, fmt.Errorf("npm package %s: %w", NPMPackage, err)
	}
	res.NPM = append(res.NPM, dir)
	logf("%s, npm %s %s", filepath.Base(res.Sums), NPMPackage, opt.Version.NPM)
	return res, nil
}

// GoBuild builds cmd/studio-bridge for t into path as a release ships it:
// static (no cgo), without urfave/cli's man-page support (as `task build`),
// paths trimmed, symbol tables dropped, the version set. The Studio plugin
// is in it because package plugin embeds plugin/build/StudioBridge.rbxm.
// It runs go from the module's root, which must be the working directory
// or above it.
func GoBuild(ctx context.Context, t Target, v Version, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-tags", "urfave_cli_no_docs",
		"-ldflags", "-s -w -X main.version="+v.Full, "-o", abs,
		"github.com/studio-bridge/studio-bridge/cmd/studio-bridge")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}
