package project

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// RootWithClient resolves the project root with one more source than Root:
// the roots an MCP client announces (roots/list, file:// URIs), consulted
// after --project and STUDIO_BRIDGE_PROJECT and before the working
// directory. clientRoots may be nil (no MCP client, or one without the
// roots capability); it is called only when neither flag nor environment
// names a root. The first client root that is an existing folder wins;
// roots that are not file:// URIs or not folders are skipped, since a
// client may list remote or virtual roots.
func RootWithClient(flag string, getenv func(string) string, clientRoots func() []string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if flag == "" && getenv(EnvVar) == "" && clientRoots != nil {
		if dir := FirstLocalRoot(clientRoots()); dir != "" {
			return dir, nil
		}
	}
	return Root(flag, getenv)
}

// FirstLocalRoot is the first of a client's root URIs that names an
// existing local folder, or "".
func FirstLocalRoot(uris []string) string {
	for _, uri := range uris {
		if dir, err := FileURIPath(uri); err == nil {
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				return dir
			}
		}
	}
	return ""
}

// FileURIPath is the absolute local path a file:// URI names (RFC 8089):
// file:///home/a/game → /home/a/game, file:///C:/game → C:\game on Windows.
// A URI with a host other than localhost names another machine: an error.
func FileURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("root %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("root %q is not a file:// URI", uri)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("root %q is on another machine (%s)", uri, u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // /C:/game → C:/game
	}
	p = filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("root %q is not an absolute path", uri)
	}
	return p, nil
}
