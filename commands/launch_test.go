package commands

import (
	"errors"
	"strings"
	"testing"
)

// Where Studio is not made for (Linux), launch says so rather than
// blaming the install; on Windows and macOS a missing install is named as
// such. Either way --studio-path is the way out.
func TestStudioExecutableNamesTheReason(t *testing.T) {
	t.Setenv("STUDIO_BRIDGE_STUDIO_PATH", "")
	t.Setenv("LOCALAPPDATA", t.TempDir())
	for _, tc := range []struct {
		goos, want string
		usage      bool
	}{
		{"linux", "Roblox Studio runs on Windows and macOS only, not on Linux", true},
		{"windows", "Roblox Studio is not installed where studio-bridge looks on this OS", false},
	} {
		_, err := studioExecutable(tc.goos, "")
		var ue UsageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--studio-path") || errors.As(err, &ue) != tc.usage {
			t.Errorf("%s: %v, want %q (a usage error: %v)", tc.goos, err, tc.want, tc.usage)
		}
	}
}
