package release

import (
	"strings"
	"testing"
)

// The tool managers' rules for picking a release asset, as docs/release.md
// transcribes them from their sources, run against a release's asset list:
// every platform each manager supports must get its own archive, and the
// sums file must never be picked.

// foremanPick is Foreman's choose_asset: for the host's keywords in order,
// the first asset whose name contains the keyword (src/artifact_choosing.rs,
// src/tool_cache.rs).
func foremanPick(goos, goarch string, assets []string) string {
	keywords := map[string][]string{
		"windows/amd64": {"win64", "windows-x86_64", "windows"},
		"windows/arm64": {"windows-aarch64"},
		"darwin/amd64":  {"macos-x86_64", "darwin-x86_64", "macos", "darwin"},
		"darwin/arm64":  {"macos-arm64", "darwin-arm64", "macos-aarch64", "darwin-aarch64", "macos", "darwin"},
		"linux/amd64":   {"linux-x86_64", "linux"},
		"linux/arm64":   {"linux-arm64", "linux-aarch64"},
	}[goos+"/"+goarch]
	for _, k := range keywords {
		for _, a := range assets {
			if strings.Contains(a, k) {
				return a
			}
		}
	}
	return ""
}

// detect is the substring detection of OS and architecture that Aftman
// (src/tool_source/mod.rs, Asset::from_name_url) and Rokit
// (lib/descriptor/os.rs, arch.rs) share for names like ours: the first
// matching group wins, in their order.
func detect(name string) (os, arch string) {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "windows") || strings.Contains(n, "win32") || strings.Contains(n, "win64"):
		os = "windows"
	case strings.Contains(n, "macos") || strings.Contains(n, "osx") || strings.Contains(n, "darwin") || strings.Contains(n, "apple"):
		os = "darwin"
	case strings.Contains(n, "linux") || strings.Contains(n, "ubuntu"):
		os = "linux"
	}
	switch {
	case strings.Contains(n, "aarch64") || strings.Contains(n, "arm64"):
		arch = "arm64"
	case strings.Contains(n, "x86-64") || strings.Contains(n, "x86_64") || strings.Contains(n, "amd64") || strings.Contains(n, "x64"):
		arch = "amd64"
	}
	return os, arch
}

// detectPick is the zip asset whose detected OS and architecture are the
// host's (Aftman keeps only .zip assets, src/tool_source/github.rs; Rokit
// takes zip among others, lib/sources/artifact/format.rs). More than one
// match is an ambiguity the managers would settle by order: the test wants
// exactly one.
func detectPick(goos, goarch string, assets []string) []string {
	var picked []string
	for _, a := range assets {
		if !strings.HasSuffix(a, ".zip") {
			continue
		}
		if os, arch := detect(a); os == goos && arch == goarch {
			picked = append(picked, a)
		}
	}
	return picked
}

func TestToolManagersPickTheirArchive(t *testing.T) {
	for _, version := range []string{"0.2.0", "1.10.3-rc.1", "0.1.0-dev+abc123"} {
		assets := []string{SumsName(version)}
		for _, tg := range Targets {
			assets = append(assets, tg.ArchiveName(version))
		}
		for _, tg := range Targets {
			want := tg.ArchiveName(version)
			t.Run(version+"/"+tg.Name(), func(t *testing.T) {
				if got := foremanPick(tg.GOOS, tg.GOARCH, assets); got != want {
					t.Errorf("Foreman on %s/%s picks %q, want %q", tg.GOOS, tg.GOARCH, got, want)
				}
				if got := detectPick(tg.GOOS, tg.GOARCH, assets); len(got) != 1 || got[0] != want {
					t.Errorf("Aftman and Rokit on %s/%s match %q, want only %q", tg.GOOS, tg.GOARCH, got, want)
				}
			})
		}
		if os, arch := detect(SumsName(version)); os != "" || arch != "" {
			t.Errorf("the sums file %s looks like a binary for %q %q", SumsName(version), os, arch)
		}
	}
}

func TestTargets(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range Targets {
		for _, key := range []string{tg.GOOS + "/" + tg.GOARCH, tg.Name(), tg.NPMName()} {
			if seen[key] {
				t.Errorf("%s appears twice", key)
			}
			seen[key] = true
		}
		if !strings.Contains("windows macos linux", tg.OS) || !strings.Contains("x86_64 aarch64", tg.Arch) {
			t.Errorf("%s: os %q, arch %q: want windows|macos|linux and x86_64|aarch64", tg.Name(), tg.OS, tg.Arch)
		}
		if got, ok := TargetFor(tg.GOOS, tg.GOARCH); !ok || got != tg {
			t.Errorf("TargetFor(%s, %s) = %v, %v", tg.GOOS, tg.GOARCH, got, ok)
		}
		wantExe := map[bool]string{true: "studio-bridge.exe", false: "studio-bridge"}[tg.GOOS == "windows"]
		if tg.Exe() != wantExe {
			t.Errorf("%s: Exe() = %q, want %q", tg.Name(), tg.Exe(), wantExe)
		}
	}
	if len(Targets) != 6 {
		t.Errorf("%d targets, want 6 (Windows, macOS, Linux × x86_64, aarch64)", len(Targets))
	}
	if _, ok := TargetFor("plan9", "386"); ok {
		t.Error("TargetFor(plan9, 386) found a target")
	}
}

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in, full, npm string
		pre           bool
		bad           bool
	}{
		{in: "v0.2.0", full: "0.2.0", npm: "0.2.0"},
		{in: "0.2.0", full: "0.2.0", npm: "0.2.0"},
		{in: "v1.10.3-rc.1", full: "1.10.3-rc.1", npm: "1.10.3-rc.1", pre: true},
		{in: "0.1.0-dev+abc123", full: "0.1.0-dev+abc123", npm: "0.1.0-dev", pre: true},
		{in: "1.0.0+build.5", full: "1.0.0+build.5", npm: "1.0.0"},
		{in: "", bad: true},
		{in: "v1.2", bad: true},
		{in: "01.2.3", bad: true},
		{in: "1.2.3-", bad: true},
		{in: "1.2.3 ", bad: true},
		{in: "1.2.3/../x", bad: true},
		{in: "vv1.2.3", bad: true},
	} {
		v, err := ParseVersion(tc.in)
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), "MAJOR.MINOR.PATCH") {
				t.Errorf("ParseVersion(%q) = %+v, %v; want an error saying the form", tc.in, v, err)
			}
			continue
		}
		if err != nil || v.Full != tc.full || v.NPM != tc.npm || v.Prerelease() != tc.pre {
			t.Errorf("ParseVersion(%q) = %+v (pre %v), %v; want %s, npm %s, pre %v", tc.in, v, v.Prerelease(), err, tc.full, tc.npm, tc.pre)
		}
	}
}
