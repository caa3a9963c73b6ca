package project

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvVar names the environment variable that sets the project root when no
// --project flag is given.
const EnvVar = "STUDIO_BRIDGE_PROJECT"

// Root resolves the project root to an absolute, existing directory: flag
// (--project DIR) wins, then getenv(EnvVar), then the working directory.
// getenv may be nil (os.Getenv). The error says where the bad value came
// from so the user can fix the right one.
func Root(flag string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	dir, from := flag, "--project"
	if dir == "" {
		dir, from = getenv(EnvVar), EnvVar
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("project root: the working directory is unreadable (%w); pass --project DIR", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project root %s (from %s): %w", dir, from, err)
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("project root %s (from %s) does not exist or is unreadable: %w", dir, from, err)
	case !st.IsDir():
		return "", fmt.Errorf("project root %s (from %s) is a file, not a folder", dir, from)
	}
	return abs, nil
}
