package testrun

import (
	"crypto/rand"
	_ "embed"
	"encoding/hex"
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
}

// Synced is a spec file that Rojo syncs into the place (found through the
// source map by the command layer).
type Synced struct {
	File   string // as the user named it
	Path   string // its instance
	Parent string // the folder run as root
	Source string // the file's contents
}

// Script is the exec script: one CONFIG line, then the runner. names maps
// the instances it will mount (under either container) to their files, for
// the output lines streamed while it runs and the failure messages. Paths
// holding no spec give ErrNoSpecs; any other error is the spec tree's
// (a path that does not exist, a file that is not text).
func Script(c Config) (script string, names map[string]string, err error) {
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
			return "", nil, err
		}
		if specs == 0 {
			return "", nil, ErrNoSpecs
		}
		names = map[string]string{}
		for _, container := range []string{"ServerStorage", "ReplicatedStorage"} {
			for _, n := range nodes {
				n.names(container+"."+MountPrefix+runID, names)
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
	return b.String(), names, nil
}
