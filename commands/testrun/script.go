package testrun

import (
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"strings"
)

// runnerSource is the Luau runner (testrunner.luau), sent as one exec or
// one Open Cloud task after its CONFIG line.
//
//go:embed testrunner.luau
var runnerSource string

// MountPrefix starts the name of the temporary folder the runner mounts
// spec files in (testrunner.luau).
const MountPrefix = "StudioBridgeTest_"

// Config is what one run tells the runner: its CONFIG line.
type Config struct {
	// Root runs the specs already in the place under this instance.
	Root string
	// Synced, when set, runs one spec file that Rojo syncs into the place:
	// its folder as Root, filtered to it, once Studio's copy is checked
	// against the file.
	Synced *Synced
	// Paths are spec files or folders on disk, mounted for the run (when
	// Root and Synced are empty), read within Scope.
	Paths []string
	Scope SpecScope
	// TestEZPath and JestPath name the framework's ModuleScript; Runner is
	// "testez" (or "") or "jest".
	TestEZPath, Runner, JestPath string
	// Skip lists the specs in the place not to run, by instance path
	// (--changed-since with Root or Synced: CONFIG.skip); SkipFile says
	// which spec files from disk not to run (with Paths).
	Skip     []string
	SkipFile func(file string) bool
}

// Built is the script of a run and what was decided building it.
type Built struct {
	// Script is the exec script: one CONFIG line, then the runner.
	Script string
	// Names maps the instances it will mount (under either container) to
	// their files, for the output lines streamed while it runs and the
	// failure messages.
	Names map[string]string
	// Specs and Skipped count the spec files from disk that run and that
	// SkipFile left out.
	Specs, Skipped int
}

// ErrUnchanged: every spec was skipped (--changed-since); nothing runs.
var ErrUnchanged = errors.New("no spec or module they require changed")

// Synced is a spec file that Rojo syncs into the place (found through the
// source map by the command layer).
type Synced struct {
	File   string // as the user named it
	Path   string // its instance
	Parent string // the folder run as root
	Source string // the file's contents
}

// Script builds a run's script. Paths holding no spec give ErrNoSpecs,
// and specs all skipped ErrUnchanged (with the counts in Built); any other
// error is the spec tree's (a path that does not exist, a file that is not
// text).
func Script(c Config) (Built, error) {
	var built Built
	var b strings.Builder
	b.WriteString("local CONFIG = {runId=")
	var id [6]byte
	_, _ = rand.Read(id[:])
	runID := hex.EncodeToString(id[:])
	LuauString(&b, runID)
	switch {
	case c.Synced != nil:
		b.WriteString(",root=")
		LuauString(&b, c.Synced.Parent)
		b.WriteString(",synced=")
		LuauString(&b, c.Synced.Path)
		b.WriteString(",expectSource=")
		LuauString(&b, c.Synced.Source)
	case c.Root != "":
		b.WriteString(",root=")
		LuauString(&b, c.Root)
	default:
		nodes, specs, _, err := specTree(c.Scope, c.Paths)
		if err != nil {
			return built, err
		}
		if specs == 0 {
			return built, ErrNoSpecs
		}
		if c.SkipFile != nil {
			built.Skipped = skipSpecs(nodes, c.SkipFile)
			specs -= built.Skipped
			if specs == 0 {
				return built, ErrUnchanged
			}
		}
		built.Specs = specs
		built.Names = map[string]string{}
		for _, container := range []string{"ServerStorage", "ReplicatedStorage"} {
			for _, n := range nodes {
				n.names(container+"."+MountPrefix+runID, built.Names)
			}
		}
		b.WriteString(",tree={")
		for i, n := range nodes {
			if i > 0 {
				b.WriteByte(',')
			}
			n.luau(&b)
		}
		b.WriteString("}")
	}
	if len(c.Skip) > 0 {
		b.WriteString(",skip={")
		for i, p := range c.Skip {
			if i > 0 {
				b.WriteByte(',')
			}
			LuauString(&b, p)
		}
		b.WriteString("}")
	}
	if c.TestEZPath != "" {
		b.WriteString(",testezPath=")
		LuauString(&b, c.TestEZPath)
	}
	if c.Runner == "jest" {
		b.WriteString(",runner=\"jest\"")
		if c.JestPath != "" {
			b.WriteString(",jestPath=")
			LuauString(&b, c.JestPath)
		}
	}
	b.WriteString("}\n")
	b.WriteString(runnerSource)
	built.Script = b.String()
	return built, nil
}

// skipSpecs stops the specs skip names from running (they stay mounted:
// other specs may require them) and counts them.
func skipSpecs(nodes []*mountNode, skip func(file string) bool) int {
	n := 0
	for _, node := range nodes {
		if node.Spec && skip(node.abs) {
			node.Spec = false
			n++
		}
		n += skipSpecs(node.Children, skip)
	}
	return n
}
