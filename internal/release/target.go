package release

import "fmt"

// Target is one platform a release ships a binary for, under the names each
// consumer uses for it.
type Target struct {
	GOOS, GOARCH string // for go build
	OS, Arch     string // in the archive's name: windows|macos|linux, x86_64|aarch64
	NPMOS        string // npm's "os" and Node's process.platform: win32|darwin|linux
	NPMCPU       string // npm's "cpu" and Node's process.arch: x64|arm64
}

// Targets are the platforms of every release: Windows, macOS and Linux, each
// on x86_64 and aarch64.
var Targets = []Target{
	{GOOS: "windows", GOARCH: "amd64", OS: "windows", Arch: "x86_64", NPMOS: "win32", NPMCPU: "x64"},
	{GOOS: "windows", GOARCH: "arm64", OS: "windows", Arch: "aarch64", NPMOS: "win32", NPMCPU: "arm64"},
	{GOOS: "darwin", GOARCH: "amd64", OS: "macos", Arch: "x86_64", NPMOS: "darwin", NPMCPU: "x64"},
	{GOOS: "darwin", GOARCH: "arm64", OS: "macos", Arch: "aarch64", NPMOS: "darwin", NPMCPU: "arm64"},
	{GOOS: "linux", GOARCH: "amd64", OS: "linux", Arch: "x86_64", NPMOS: "linux", NPMCPU: "x64"},
	{GOOS: "linux", GOARCH: "arm64", OS: "linux", Arch: "aarch64", NPMOS: "linux", NPMCPU: "arm64"},
}

// TargetFor is the target of the Go platform goos/goarch, if a release has
// one.
func TargetFor(goos, goarch string) (Target, bool) {
	for _, t := range Targets {
		if t.GOOS == goos && t.GOARCH == goarch {
			return t, true
		}
	}
	return Target{}, false
}

// Name is the target as archives name it, e.g. "linux-x86_64".
func (t Target) Name() string { return t.OS + "-" + t.Arch }

// Exe is the binary's file name on the target: Rokit and Aftman install the
// file named after the tool (the repository's name) plus the platform's
// executable suffix.
func (t Target) Exe() string {
	if t.GOOS == "windows" {
		return "studio-bridge.exe"
	}
	return "studio-bridge"
}

// ArchiveName is the target's release archive for version (without a
// leading v), e.g. studio-bridge-0.2.0-linux-x86_64.zip.
func (t Target) ArchiveName(version string) string {
	return fmt.Sprintf("studio-bridge-%s-%s.zip", version, t.Name())
}

// NPMName is the target's npm platform package, e.g.
// @studio-bridge/cli-linux-x64 (Node's names for the platform, as
// process.platform and process.arch give them to the shim).
func (t Target) NPMName() string {
	return NPMPackage + "-" + t.NPMOS + "-" + t.NPMCPU
}

// NPMPackage is the npm package users install or run with npx. (The bare
// name studio-bridge on npm belongs to an unrelated project.)
const NPMPackage = "@studio-bridge/cli"

// SumsName is the name of the release's SHA-256 sums file. It names no
// operating system, so no tool manager mistakes it for a binary archive.
func SumsName(version string) string {
	return "studio-bridge-" + version + "-sha256sums.txt"
}
