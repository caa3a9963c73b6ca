package kit

import (
	"fmt"
	"os"
	"testing"
)

// StudioScript writes, at path, an executable shell script that
// `studio-bridge launch --studio-path` starts as it would start Studio: it
// notes its pid, then execs program (quoted here) with args (shell words,
// which may use the place file, "$1"), so that the pid is the program's
// own. At cleanup that process, if it started, is stopped (StopPIDFile):
// exactly it, never a process matched by name, since a launched Studio
// outlives the command that launched it, as a real one does. Unix only,
// like any #! script.
func StudioScript(tb testing.TB, path, program, args string) {
	tb.Helper()
	pidFile := path + ".pid"
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %q\nexec %q %s\n", pidFile, program, args)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { StopPIDFile(tb, pidFile) })
}
