package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/plugin"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// PluginFileName is the plugin's file name in Studio's plugins folder.
const PluginFileName = "StudioBridge.rbxm"

// PluginBuild is the built plugin that install-plugin writes. The binary's
// main package sets it from the copy embedded at build time.
var PluginBuild struct {
	Data    []byte
	Version string
}

// InstallArgs are install-plugin's and uninstall-plugin's arguments.
type InstallArgs struct {
	Dir string `json:"dir" usage:"Studio's plugins folder (default: the OS's Roblox Plugins folder)"`
}

// DefaultPluginsDir is where Studio loads local plugins from on this OS.
func DefaultPluginsDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
			return filepath.Join(dir, "Roblox", "Plugins"), nil
		}
		return "", errors.New("LOCALAPPDATA is not set; pass --dir")
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home folder (%v); pass --dir", err)
		}
		return filepath.Join(home, "Documents", "Roblox", "Plugins"), nil
	}
	//lint:ignore ST1005 "Roblox Studio" is a proper noun
	return "", fmt.Errorf("Roblox Studio does not run on %s, so there is no default plugins folder; pass --dir", runtime.GOOS)
}

func pluginsDir(args *InstallArgs) (string, error) {
	if args.Dir != "" {
		return args.Dir, nil
	}
	dir, err := DefaultPluginsDir()
	if err != nil {
		return "", UsageError{err}
	}
	return dir, nil
}

// InstallData is install-plugin's and uninstall-plugin's output.
type InstallData struct {
	Path    string `json:"path"`
	Bytes   int    `json:"bytes,omitempty"`
	Version string `json:"version,omitempty"`
	Removed bool   `json:"removed,omitempty"`
	// Port is the port the installed plugin looks for the host on.
	Port int `json:"port,omitempty"`
}

// pairPlugin is the embedded plugin paired with this user's token and port
// (plugin.Pair): the pairing key, derived from the token, lets the plugin
// and any process holding the token prove themselves to each other
// (PROTOCOL.md 12.3). It reads back what it wrote before anything is
// installed.
func pairPlugin(auth authtoken.Settings, port int) ([]byte, error) {
	tok, err := auth.Resolve()
	if err != nil {
		return nil, fmt.Errorf("pair the plugin with this user's token: %w", err)
	}
	key := tok.PairingKey()
	data, err := plugin.Pair(PluginBuild.Data, key, port)
	if err != nil {
		return nil, fmt.Errorf("pair the plugin: %w", err)
	}
	if got, gotPort, ok, err := plugin.Paired(data); err != nil || !ok || !bytes.Equal(got, key) || gotPort != port {
		return nil, fmt.Errorf("pair the plugin: the paired file does not read back (%v)", err)
	}
	return data, nil
}

// InstallPlugin writes the embedded plugin into Studio's plugins folder.
var InstallPlugin = Define(Spec[InstallArgs, InstallData]{
	Definition: Definition{
		Name:    "install-plugin",
		Summary: "Install the studio-bridge Studio plugin (embedded in this binary) into Studio's plugins folder, paired with this user's token and --port.",
		Local:   true,
	},
	Run: func(_ context.Context, env *Env, args *InstallArgs) (*Result, error) {
		if len(PluginBuild.Data) == 0 {
			return nil, errors.New("this studio-bridge binary was built without the plugin; build it with `task build`")
		}
		port := env.Port
		if port == 0 {
			port = protocol.DefaultPort
		}
		paired, err := pairPlugin(env.Auth, port)
		if err != nil {
			return nil, err
		}
		dir, err := pluginsDir(args)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create plugins folder: %w", err)
		}
		path := filepath.Join(dir, PluginFileName)
		if err := writeFileAtomic(path, paired); err != nil {
			return nil, err
		}
		data := InstallData{Path: path, Bytes: len(paired), Version: PluginBuild.Version, Port: port}
		text := fmt.Sprintf("Installed the studio-bridge plugin %s to %s (%d bytes), paired with this user's studio-bridge on port %d.\n"+
			"Restart Studio, or reload plugins (Plugins tab → Manage Plugins), to load it.\n", data.Version, path, data.Bytes, port)
		return &Result{Data: data, Text: text}, nil
	},
})

// UninstallPlugin removes the plugin from Studio's plugins folder.
var UninstallPlugin = Define(Spec[InstallArgs, InstallData]{
	Definition: Definition{
		Name:    "uninstall-plugin",
		Summary: "Remove the studio-bridge Studio plugin from Studio's plugins folder.",
		Local:   true,
	},
	Run: func(_ context.Context, _ *Env, args *InstallArgs) (*Result, error) {
		dir, err := pluginsDir(args)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, PluginFileName)
		err = os.Remove(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &Result{Data: InstallData{Path: path}, Text: fmt.Sprintf("The studio-bridge plugin is not installed at %s; nothing to do.\n", path)}, nil
		case err != nil:
			return nil, fmt.Errorf("remove %s: %w", path, err)
		}
		return &Result{Data: InstallData{Path: path, Removed: true},
			Text: fmt.Sprintf("Removed %s. Restart Studio, or reload plugins, to unload it.\n", path)}, nil
	},
})
