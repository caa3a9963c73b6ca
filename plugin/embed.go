package plugin

import (
	_ "embed"
	"strings"
)

// RBXM is the built plugin, as Rojo builds plugin/default.project.json.
//
//go:embed build/StudioBridge.rbxm
var RBXM []byte

//go:embed src/Version.luau
var versionSource string

//go:embed src/Pairing.luau
var pairingSource string

// Version is the plugin's version, as src/Version.luau returns it.
func Version() string {
	for _, line := range strings.Split(versionSource, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "return "); ok {
			return strings.Trim(rest, `"' `)
		}
	}
	return ""
}
