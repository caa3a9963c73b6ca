package kit

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/studio-bridge/studio-bridge/authtoken"
)

// MainInConfigDir is the TestMain of packages that run studio-bridge's
// commands in process: it points STUDIO_BRIDGE_CONFIG_DIR at a fresh
// directory for the whole test binary, so that nothing they run touches the
// developer's real one (a host writes its host file there), runs the tests
// under goleak.VerifyTestMain, and removes the directory before exiting.
func MainInConfigDir(m *testing.M) {
	dir, err := os.MkdirTemp("", "studio-bridge-config-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv(authtoken.EnvConfigDir, dir); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}
