package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// The script commands and the project's source map: a script that Rojo
// syncs from a file is the file's copy. Reads and matches say which file;
// an edit is refused (SCRIPT_MANAGED), naming the file and line to edit
// instead, because Rojo overwrites Studio's copy at its next sync.

// syncedFile is the file (as shown to people, relative to the working
// directory) that the source map syncs the script at path from, or "".
func syncedFile(m *sourcemap.Map, path string) string {
	e, ok := m.Entry(strings.TrimPrefix(path, "game."))
	if !ok {
		return ""
	}
	return m.Show(e.File)
}

// managedError refuses the edits of req that touch synced scripts, naming
// each script's file and the line there that the edit would change.
func managedError(m *sourcemap.Map, req actions.ScriptEditRequest) error {
	var lines []string
	for _, op := range req.Edits {
		e, ok := m.Entry(strings.TrimPrefix(op.Path, "game."))
		if !ok {
			continue
		}
		where := m.Show(e.File)
		if line := fileLine(filepath.Join(m.Dir, filepath.FromSlash(e.File)), op); line > 0 {
			where = fmt.Sprintf("%s:%d", where, line)
		}
		lines = append(lines, fmt.Sprintf("%s is synced by Rojo from %s: edit that file instead (Rojo syncs it into Studio)", op.Path, where))
	}
	if len(lines) == 0 {
		return nil
	}
	w := Wordf("%s\nEditing Studio's copy would be overwritten at Rojo's next sync; to do it anyway, pass %s.", strings.Join(lines, "\n"), ArgName("inStudio"))
	w.Code = protocol.CodeScriptManaged
	return w
}

// fileLine is the line of the file on disk an edit starts at: where its
// find text first occurs, the first of its lines, or 1 for a whole new
// text; 0 when the file cannot be read or the text is not in it.
func fileLine(file string, op actions.ScriptEditOp) int {
	switch {
	case op.Lines != "":
		var a int
		if _, err := fmt.Sscanf(op.Lines, "%d", &a); err == nil && a > 0 {
			return a
		}
		return 0
	case op.Find != nil:
		data, err := os.ReadFile(file)
		if err != nil {
			return 0
		}
		i := strings.Index(strings.ReplaceAll(string(data), "\r\n", "\n"), *op.Find)
		if i < 0 {
			return 0
		}
		return strings.Count(string(data[:i]), "\n") + 1
	case op.Source != nil && !op.Create:
		return 1
	}
	return 0
}

// managedWarning is the note of an edit made in Studio on purpose
// (--in-studio) to scripts Rojo syncs, or "".
func managedWarning(m *sourcemap.Map, req actions.ScriptEditRequest) string {
	var lines []string
	for _, op := range req.Edits {
		if f := syncedFile(m, op.Path); f != "" {
			lines = append(lines, fmt.Sprintf("warning: %s is synced by Rojo from %s; Rojo will overwrite this edit at its next sync unless the file changes too", op.Path, f))
		}
	}
	return strings.Join(lines, "\n")
}

// editPaths are the scripts a request edits (or creates), in order.
func editPaths(req actions.ScriptEditRequest) []string {
	out := make([]string, 0, len(req.Edits))
	for _, op := range req.Edits {
		out = append(out, op.Path)
	}
	return out
}
