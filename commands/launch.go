package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// LaunchArgs are launch's arguments.
type LaunchArgs struct {
	Place      string `json:"place" pos:"true" usage:"place file (.rbxl or .rbxlx) to open"`
	StudioPath string `json:"studioPath" usage:"the Roblox Studio executable (default: $STUDIO_BRIDGE_STUDIO_PATH, else the OS's install location)"`
	Wait       string `json:"wait" default:"2m" usage:"how long to wait for the new Studio window's session"`
}

// Launch starts Roblox Studio and waits for its plugin session.
var Launch = Define(Spec[LaunchArgs, SessionView]{
	Definition: Definition{
		Name:    "launch",
		Summary: "Start Roblox Studio (optionally opening a place) and wait until its session connects.",
	},
	Run: func(ctx context.Context, env *Env, args *LaunchArgs) (*Result, error) {
		wait, err := time.ParseDuration(args.Wait)
		if err != nil || wait <= 0 {
			return nil, UsageError{fmt.Errorf("--wait %q: want a duration such as 90s or 2m", args.Wait)}
		}
		if env.Timeout > 0 && env.Timeout < wait {
			wait = env.Timeout // --timeout bounds the whole command
		}
		var cmdArgs []string
		if args.Place != "" {
			place, err := placeFile(args.Place)
			if err != nil {
				return nil, UsageError{err}
			}
			cmdArgs = append(cmdArgs, place)
		}
		studio, err := studioExecutable(runtime.GOOS, args.StudioPath)
		if err != nil {
			return nil, err
		}
		before, err := env.Bridge.Sessions(ctx)
		if err != nil {
			return nil, err
		}
		known := map[string]bool{}
		for _, s := range before {
			known[s.InstanceID] = true
		}
		events := env.Bridge.WatchSessions(ctx)

		cmd := exec.Command(studio, cmdArgs...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		detach(cmd)
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start Roblox Studio (%s): %w", studio, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		env.status("waiting for Roblox Studio to start and its plugin to connect…")

		deadline := time.NewTimer(wait)
		defer deadline.Stop()
		for {
			list, err := env.Bridge.Sessions(ctx)
			if err != nil {
				return nil, err
			}
			if s, ok := newEditSession(list, known); ok {
				view := SessionView{SessionInfo: s, UptimeMs: time.Since(s.ConnectedAt).Milliseconds()}
				return &Result{Data: view, Text: fmt.Sprintf("Studio is up: %s [%s] %s, session %s\n", s.PlaceName, s.Context, s.State, s.SessionID)}, nil
			}
			select {
			case <-events:
			case err := <-exited:
				// Studio's launcher may hand over to another process and exit
				// at once; only a failure is news.
				if err != nil {
					//lint:ignore ST1005 "Roblox Studio" is a proper noun
					return nil, fmt.Errorf("Roblox Studio exited before its plugin connected: %v", err)
				}
				exited = nil
			case <-deadline.C:
				return nil, &protocol.Error{Code: protocol.CodeTimeout, Message: fmt.Sprintf(
					"Studio started but no new plugin session connected within %s. Is the studio-bridge plugin installed (studio-bridge install-plugin), and set to the same port as studio-bridge?", wait)}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	},
})

// placeFile checks that path is a place file Studio can open and returns
// it absolute.
func placeFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	var st fs.FileInfo
	if err == nil {
		st, err = os.Stat(abs)
	}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("place file %s does not exist", path)
	case err != nil:
		return "", fmt.Errorf("place file: %w", err)
	case st.IsDir():
		return "", fmt.Errorf("%s is a directory, not a place file (.rbxl or .rbxlx)", path)
	case ext != ".rbxl" && ext != ".rbxlx":
		return "", fmt.Errorf("%s is not a place file: Studio opens .rbxl and .rbxlx files", path)
	}
	return abs, nil
}

// newEditSession finds the edit session of an instance that was not there
// before the launch.
func newEditSession(list []protocol.SessionInfo, known map[string]bool) (protocol.SessionInfo, bool) {
	for _, s := range list {
		if !known[s.InstanceID] && s.Context == protocol.ContextEdit {
			return s, true
		}
	}
	return protocol.SessionInfo{}, false
}

// studioExecutable finds Roblox Studio: the flag, the environment, then the
// default install location of goos (runtime.GOOS). Studio is made for
// Windows and macOS only: elsewhere only the flag or the environment can
// name it (a wrapper that runs it, e.g. under Wine).
func studioExecutable(goos, flag string) (string, error) {
	if flag == "" {
		flag = os.Getenv("STUDIO_BRIDGE_STUDIO_PATH")
	}
	if flag != "" {
		if _, err := os.Stat(flag); err != nil {
			return "", UsageError{fmt.Errorf("--studio-path: %w", err)}
		}
		return flag, nil
	}
	switch goos {
	case "windows":
		// Studio installs into a folder per version; the newest wins.
		matches, _ := filepath.Glob(filepath.Join(os.Getenv("LOCALAPPDATA"), "Roblox", "Versions", "*", "RobloxStudioBeta.exe"))
		sort.Slice(matches, func(i, j int) bool { return modTime(matches[i]).After(modTime(matches[j])) })
		if len(matches) > 0 {
			return matches[0], nil
		}
	case "darwin":
		const mac = "/Applications/RobloxStudio.app/Contents/MacOS/RobloxStudio"
		if _, err := os.Stat(mac); err == nil {
			return mac, nil
		}
	default:
		//lint:ignore ST1005 "Roblox Studio" is a proper noun
		return "", UsageError{fmt.Errorf("Roblox Studio runs on Windows and macOS only, not on %s, so there is no install to find here; to launch one anyway (a wrapper that runs it, e.g. under Wine), pass --studio-path or set STUDIO_BRIDGE_STUDIO_PATH", osName(goos))}
	}
	//lint:ignore ST1005 "Roblox Studio" is a proper noun
	return "", errors.New("Roblox Studio is not installed where studio-bridge looks on this OS; pass --studio-path or set STUDIO_BRIDGE_STUDIO_PATH")
}

func modTime(path string) time.Time {
	st, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

// osName is goos as people call it.
func osName(goos string) string {
	if goos == "linux" {
		return "Linux"
	}
	return goos
}
