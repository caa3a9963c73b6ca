package release

import (
	"fmt"
	"regexp"
	"strings"
)

// semver is a semantic version (semver.org, 2.0.0) without a leading v:
// core, optional pre-release, optional build metadata.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?` +
	`(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$`)

// Version is a release's version.
type Version struct {
	Full string // semver without the leading v: archives, sums, the binary's --version
	NPM  string // Full without build metadata, which npm drops from versions anyway
}

// ParseVersion reads a release version: a git tag such as v0.2.0, or a
// semantic version such as 0.2.0 or 0.1.0-dev+abc123.
func ParseVersion(s string) (Version, error) {
	v := strings.TrimPrefix(s, "v")
	if !semver.MatchString(v) {
		return Version{}, fmt.Errorf("version %q is not a semantic version: want MAJOR.MINOR.PATCH with an optional -prerelease and +build, e.g. v0.2.0 or 0.2.0-rc.1", s)
	}
	npm, _, _ := strings.Cut(v, "+")
	return Version{Full: v, NPM: npm}, nil
}

// Prerelease reports whether the version is a pre-release (0.2.0-rc.1),
// which npm publishes under a dist-tag other than latest.
func (v Version) Prerelease() bool { return strings.Contains(v.NPM, "-") }
