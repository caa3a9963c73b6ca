package project

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRootWithClient: --project and the environment win over the client's
// roots; the first client root that is a local folder wins over the
// working directory; unusable roots are skipped.
func TestRootWithClient(t *testing.T) {
	flagDir, envDir, clientDir := t.TempDir(), t.TempDir(), t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(clientDir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvVar {
				return v
			}
			return ""
		}
	}
	roots := func(uris ...string) func() []string { return func() []string { return uris } }
	for _, tt := range []struct {
		name   string
		flag   string
		getenv func(string) string
		roots  func() []string
		want   string
	}{
		{"flag wins", flagDir, env(envDir), roots(fileURI(clientDir)), flagDir},
		{"environment next", "", env(envDir), roots(fileURI(clientDir)), envDir},
		{"client root next", "", env(""), roots(fileURI(clientDir)), clientDir},
		{"localhost host", "", env(""), roots("file://localhost" + fileURI(clientDir)[len("file://"):]), clientDir},
		{"unusable roots skipped", "", env(""), roots("https://example.com/x", "file://other-box/x", fileURI(file), fileURI(clientDir)), clientDir},
		{"no usable root: working directory", "", env(""), roots("https://example.com/x"), wd},
		{"no client: working directory", "", env(""), nil, wd},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RootWithClient(tt.flag, tt.getenv, tt.roots)
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestFileURIPath(t *testing.T) {
	for _, tt := range []struct {
		uri, want string
		ok        bool
	}{
		{"file:///home/a/My%20Game", filepath.FromSlash("/home/a/My Game"), runtime.GOOS != "windows"},
		{"http://x/y", "", false},
		{"file://box/share", "", false},
	} {
		got, err := FileURIPath(tt.uri)
		if (err == nil) != tt.ok || tt.ok && got != tt.want {
			t.Errorf("%s: %q, %v; want %q ok=%v", tt.uri, got, err, tt.want, tt.ok)
		}
	}
}

// TestFileURIPathWindowsDrive: /C:/game is a drive path on Windows only.
func TestFileURIPathWindowsDrive(t *testing.T) {
	got, err := FileURIPath("file:///C:/game")
	want := "/C:/game"
	if runtime.GOOS == "windows" {
		want = `C:\game`
	}
	if err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}

// fileURI is dir as a file:// URI, as an MCP client spells it.
func fileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
