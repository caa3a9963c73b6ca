package testutil

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// BuildBinary builds the studio-bridge command into dir as a release is
// built (see Taskfile.yml: static, without urfave/cli's man-page support)
// and returns its path.
func BuildBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "studio-bridge")
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "github.com/studio-bridge/studio-bridge/cmd/studio-bridge")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &BuildError{Err: err, Output: string(out)}
	}
	return bin, nil
}

// BuildError is a failed build, with the compiler's output.
type BuildError struct {
	Err    error
	Output string
}

func (e *BuildError) Error() string {
	return "go build studio-bridge: " + e.Err.Error() + "\n" + e.Output
}
