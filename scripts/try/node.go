package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// checkNode finds node (20 or newer) and npm, or says what to install.
func checkNode(ctx context.Context) (string, error) {
	const need = "try needs Node.js 20 or newer with npm (https://nodejs.org)"
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("%s: node is not on PATH", need)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("%s: npm is not on PATH", need)
	}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s: node --version: %v", need, err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	if major, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); err != nil || major < 20 {
		return "", fmt.Errorf("%s: this node is %s", need, v)
	}
	return node, nil
}

// staleNodePackages says why the emulator's node_modules does not match its
// package-lock.json ("" when it does): a package missing or at another
// version. Optional packages (another platform's binaries) may be missing.
func staleNodePackages(emulator string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(emulator, "package-lock.json"))
	if err != nil {
		return "", err
	}
	var lock struct {
		Packages map[string]struct {
			Version  string `json:"version"`
			Optional bool   `json:"optional"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		return "", fmt.Errorf("test/emulator/package-lock.json: %w", err)
	}
	for path, want := range lock.Packages {
		if !strings.HasPrefix(path, "node_modules/") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(emulator, filepath.FromSlash(path), "package.json"))
		if err != nil {
			if want.Optional {
				continue
			}
			return strings.TrimPrefix(path, "node_modules/") + " is missing", nil
		}
		var got struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(raw, &got) != nil {
			return strings.TrimPrefix(path, "node_modules/") + " has an unreadable package.json", nil
		}
		if got.Version != want.Version {
			return fmt.Sprintf("%s is %s, the lockfile has %s", strings.TrimPrefix(path, "node_modules/"), got.Version, want.Version), nil
		}
	}
	return "", nil
}
