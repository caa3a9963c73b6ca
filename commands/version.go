package commands

import (
	"context"
	"fmt"
	"runtime"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Version is set by the binary's main package at start-up.
var Version = "dev"

// VersionData is the version command's output.
type VersionData struct {
	Version         string `json:"version"`
	ProtocolVersion int    `json:"protocolVersion"`
	PluginVersion   string `json:"pluginVersion"`
	Go              string `json:"go"`
}

// VersionCommand prints what this binary is.
var VersionCommand = Define(Spec[NoArgs, VersionData]{
	Definition: Definition{
		Name:    "version",
		Summary: "Print the version of studio-bridge, its wire protocol and its embedded plugin.",
		Local:   true,
	},
	Run: func(context.Context, *Env, *NoArgs) (*Result, error) {
		d := versionData()
		return &Result{Data: d, Text: d.String()}, nil
	},
})

func versionData() VersionData {
	return VersionData{Version: Version, ProtocolVersion: protocol.Version, PluginVersion: PluginBuild.Version, Go: runtime.Version()}
}

// String is the version line people see, from `version` and `--version`.
func (d VersionData) String() string {
	return fmt.Sprintf("studio-bridge %s (protocol %d, plugin %s, %s)\n", d.Version, d.ProtocolVersion, d.PluginVersion, d.Go)
}

// VersionLine is the version line people see.
func VersionLine() string { return versionData().String() }
