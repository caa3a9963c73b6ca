package commands

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/studio-bridge/studio-bridge/commands/testrun"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// The source map applies to every session of the process (issue 24): the
// CLI says where to look (ConfigureSourceMap) and the first command that
// prints a location finds and loads it, once; tests set one directly
// (SetSourceMap). Without a map a location stays a DataModel path, except a
// chunk named after its file (exec FILE), which is a file already.
var (
	sourceMap     atomic.Pointer[sourcemap.Map]
	sourceMapMu   sync.Mutex
	sourceMapFind func() // set by ConfigureSourceMap, run once by SourceMap
	// sourceMapConf is what ConfigureSourceMap was given, so that
	// SetSourceMapRoot can look again in another root.
	sourceMapConf *mapConf
)

type mapConf struct {
	ctx  context.Context
	o    sourcemap.Options
	warn func(string)
}

// SetSourceMap makes m the process's source map (nil: none).
func SetSourceMap(m *sourcemap.Map) {
	sourceMapMu.Lock()
	sourceMapFind, sourceMapConf = nil, nil
	sourceMapMu.Unlock()
	sourceMap.Store(m)
}

// ConfigureSourceMap says where the process's map is (sourcemap.Discover's
// options); the map is found when first needed. warn receives, once, the
// hint for a missing or stale map, the list of mapped files missing on disk,
// or why a named map could not be read (then no map is used).
func ConfigureSourceMap(ctx context.Context, o sourcemap.Options, warn func(string)) {
	ctx = context.WithoutCancel(ctx)
	sourceMapMu.Lock()
	defer sourceMapMu.Unlock()
	configureLocked(&mapConf{ctx: ctx, o: o, warn: warn})
}

// SetSourceMapRoot looks for the process's map in root instead of the root
// ConfigureSourceMap was given, when the two differ: MCP calls it with the
// client's root (roots/list) when neither --project nor
// STUDIO_BRIDGE_PROJECT named one, so tool results map to the client's
// files (shown relative to root). The map is then found (again) when next
// needed. Without ConfigureSourceMap (a map set with SetSourceMap, or
// none) it does nothing; it answers whether the root changed.
func SetSourceMapRoot(root string) bool {
	sourceMapMu.Lock()
	defer sourceMapMu.Unlock()
	c := sourceMapConf
	if c == nil || root == "" || root == c.o.Root {
		return false
	}
	next := *c
	next.o.Root = root
	next.o.ShowFrom = root // the client's files, as the client names them
	configureLocked(&next)
	return true
}

// configureLocked makes c the process's map configuration; the map is found
// once, when first needed. sourceMapMu is held.
func configureLocked(c *mapConf) {
	sourceMapConf = c
	ctx, o, warn := c.ctx, c.o, c.warn
	sourceMapFind = sync.OnceFunc(func() {
		found, err := sourcemap.Discover(ctx, o)
		var m *sourcemap.Map
		if err != nil {
			warn(err.Error() + "; locations stay DataModel paths")
		} else {
			if found.Hint != "" {
				warn(found.Hint)
			}
			if note := found.MissingNote(); note != "" {
				warn(note)
				found.Forget()
			}
			m = found.Map
		}
		sourceMapMu.Lock()
		defer sourceMapMu.Unlock()
		if sourceMapConf == c { // not looked for in another root meanwhile
			sourceMap.Store(m)
		}
	})
}

// SourceMap is the process's source map, or nil (a nil *sourcemap.Map maps
// only file chunk names).
func SourceMap() *sourcemap.Map {
	sourceMapMu.Lock()
	find := sourceMapFind
	sourceMapMu.Unlock()
	if find != nil {
		find()
	}
	return sourceMap.Load()
}

// textLocations gathers the locations of each line of texts, in order.
func textLocations(m *sourcemap.Map, texts ...string) []sourcemap.Location {
	var out []sourcemap.Location
	for _, text := range texts {
		for line := range strings.SplitSeq(text, "\n") {
			out = append(out, m.Locate(line)...)
		}
	}
	return out
}

// execFailure is the text for people of a failed exec: the error with its
// locations as files, and, when the error passed through more than one
// frame, the traceback too, one frame a line.
func execFailure(m *sourcemap.Map, data ExecData) string {
	msg := "script error: " + m.RewriteText(data.Error)
	trace := strings.TrimRight(data.Traceback, "\n")
	if strings.Count(trace, "\n") >= 1 {
		msg += "\ntraceback:\n  " + strings.ReplaceAll(m.RewriteText(trace), "\n", "\n  ")
	}
	return msg
}

// Located is l with the locations of its body (Line.Locations), for --json
// and MCP.
func (l Line) Located() Line {
	l.Locations = SourceMap().Locate(l.Body)
	return l
}

// findSyncedSpec is the synced spec of a test run, or nil: one spec file
// named, a TestEZ run, and a source map that maps the file. (A Jest run of
// one spec mounts its folder from disk and filters to it instead.)
func findSyncedSpec(m *sourcemap.Map, args *TestArgs) *testrun.Synced {
	if m == nil || args.Root != "" || args.Cloud || args.Runner == "jest" || len(args.Paths) != 1 || !testrun.IsSpecFile(filepath.Base(args.Paths[0])) {
		return nil
	}
	e, ok := m.EntryOfFile(args.Paths[0])
	if !ok || e.Parent == "" {
		return nil
	}
	data, err := os.ReadFile(args.Paths[0])
	if err != nil || len(data) > MaxScriptBytes {
		return nil // the ordinary mount reports it
	}
	return &testrun.Synced{File: args.Paths[0], Path: e.Path, Parent: e.Parent, Source: string(data)}
}
