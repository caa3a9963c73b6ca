package commands

import (
	"strings"
	"sync/atomic"

	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// The source map applies to every session of the process (issue 24): set
// once at start-up (SetSourceMap), read by every command that prints a
// location. Without one, a location stays a DataModel path, except a chunk
// named after its file (exec FILE), which is a file already.
var sourceMap atomic.Pointer[sourcemap.Map]

// SetSourceMap makes m the process's source map (nil: none).
func SetSourceMap(m *sourcemap.Map) { sourceMap.Store(m) }

// SourceMap is the process's source map, or nil (a nil *sourcemap.Map maps
// only file chunk names).
func SourceMap() *sourcemap.Map { return sourceMap.Load() }

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
