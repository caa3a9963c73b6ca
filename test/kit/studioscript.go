package kit

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

// StudioScript writes, at path, an executable shell script that
// `studio-bridge launch --studio-path` starts as it would start Studio: it
// notes its pid, then execs program (quoted here) with args (shell words,
// which may use the place file, "$1"), so that the pid is the program's
// own. At cleanup that process, if it started, is stopped (StopPIDFile):
// exactly it, never a process matched by name, since a launched Studio
// outlives the command that launched it, as a real one does.
//
// Unix only, like any #! script: on Windows the test is skipped, saying so.
func StudioScript(tb testing.TB, path, program, args string) {
	tb.Helper()
	if runtime.GOOS == "windows" {
		tb.Skip("kit: the fake Studio that launch starts is a #! shell script noting its pid, which Windows cannot run; launch's Windows code (commands/detach_windows.go) is compile-checked only")
	}
	pidFile := path + ".pid"
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %q\nexec %q %s\n", pidFile, program, args)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { StopPIDFile(tb, pidFile) })
}
