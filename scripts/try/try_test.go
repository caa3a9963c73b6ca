package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

// pids reads the children's pids from try's output.
var pids = regexp.MustCompile(`host pid (\d+), window pid (\d+)`)

// repo is the repository's root, try's working directory in the tests.
func repo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTry runs try as a user does, on a free port: it reports each step,
// says when the emulated window is connected, an exec against it prints 1,
// and Ctrl-C stops the host and the window and try with 0, freeing the
// port. Needs Node.js 20+ with npm (try installs the emulator's packages
// itself when they are missing).
func TestTry(t *testing.T) {
	try := kit.Build(t, "scripts/try")
	port := strconv.Itoa(kit.FreePort(t))
	bin := filepath.Join(t.TempDir(), "studio-bridge")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command(try, "--port", port, "--bin", bin)
	cmd.Dir = repo(t)
	cmd.Env = kit.ChildEnv(t, toolCaches(t)...)
	var out kit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	kit.Interruptible(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("try's output:\n%s", out.String())
			// try failed to stop them: do it, so that no host or window
			// outlives the test.
			if m := pids.FindStringSubmatch(out.String()); m != nil {
				for _, p := range m[1:] {
					pid, _ := strconv.Atoi(p)
					kit.StopPID(t, pid)
				}
			}
		}
	})

	// A cold machine installs Node packages and compiles: the bound is for
	// a hung try, not a speed target.
	kit.WaitFor(t, 15*time.Minute, "try to say the window is connected", func() bool {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("try exited (%v) before the window was connected", err)
		default:
		}
		return strings.Contains(out.String(), "try: ready in")
	})
	for _, step := range []string{"try: [1/4]", "try: [2/4]", "try: [3/4]", "try: [4/4]", "host pid ", "--port " + port + " exec 'print(1)'"} {
		if !strings.Contains(out.String(), step) {
			t.Errorf("try never printed %q", step)
		}
	}

	r := kit.Run(t, time.Minute, kit.Options{}, bin, "--port", port, "exec", "print(1)")
	if r.Code != 0 || r.Stdout != "1\n" {
		t.Errorf("exec 'print(1)' against try: exit %d, stdout %q, stderr %q; want 1", r.Code, r.Stdout, r.Stderr)
	}

	if err := kit.Interrupt(cmd); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("try after Ctrl-C: %v, want exit 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("try still running a minute after Ctrl-C")
	}
	if !strings.Contains(out.String(), "try: stopped") {
		t.Error("try did not say it stopped")
	}
	// try waits for both children: the host is gone, and the port free.
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("port %s still held after try exited: %v", port, err)
	}
	ln.Close()
}

// toolCaches are the Go and npm caches of the developer, for try's go build
// and npm ci: kit.ChildEnv gives children a HOME of their own, where they
// would otherwise start from empty caches and rebuild (and download)
// everything.
func toolCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		t.Fatalf("go env GOCACHE GOMODCACHE GOPATH printed %q", out)
	}
	env := []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2]}
	if out, err := exec.Command("npm", "config", "get", "cache").Output(); err == nil {
		env = append(env, "npm_config_cache="+strings.TrimSpace(string(out)))
	}
	return env
}

// TestTryPortTaken: a port already held is refused before anything is
// built, saying what to do.
func TestTryPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	r := kit.Run(t, 5*time.Minute, kit.Options{Dir: repo(t)}, kit.Build(t, "scripts/try"), "--port", port, "--bin", filepath.Join(t.TempDir(), "sb"))
	if r.Code != 1 || !strings.Contains(r.Stderr, "port "+port+" is taken") || !strings.Contains(r.Stderr, "--port") || strings.Contains(r.Stderr, "[3/4]") {
		t.Errorf("try on a taken port: exit %d, stderr %q; want exit 1 naming the port and --port, before building", r.Code, r.Stderr)
	}
}

func TestStaleNodePackages(t *testing.T) {
	lock := `{"packages": {
		"": {"name": "x"},
		"node_modules/a": {"version": "1.0.0"},
		"node_modules/@s/b": {"version": "2.0.0"},
		"node_modules/a/node_modules/c": {"version": "3.0.0"},
		"node_modules/other-platform": {"version": "1.0.0", "optional": true}
	}}`
	write := func(dir, path, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	installed := map[string]string{
		"node_modules/a/package.json":                `{"version": "1.0.0"}`,
		"node_modules/@s/b/package.json":             `{"version": "2.0.0"}`,
		"node_modules/a/node_modules/c/package.json": `{"version": "3.0.0"}`,
	}
	for _, tc := range []struct {
		name   string
		change map[string]string // path → content; "" removes it
		want   string
	}{
		{name: "all installed", want: ""},
		{name: "missing", change: map[string]string{"node_modules/@s/b/package.json": ""}, want: "@s/b is missing"},
		{name: "nested missing", change: map[string]string{"node_modules/a/node_modules/c/package.json": ""}, want: "a/node_modules/c is missing"},
		{name: "other version", change: map[string]string{"node_modules/a/package.json": `{"version": "0.9.0"}`}, want: "a is 0.9.0, the lockfile has 1.0.0"},
		{name: "broken package.json", change: map[string]string{"node_modules/a/package.json": `{`}, want: "a has an unreadable package.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(dir, "package-lock.json", lock)
			for p, c := range installed {
				if v, ok := tc.change[p]; ok {
					c = v
				}
				if c != "" {
					write(dir, p, c)
				}
			}
			got, err := staleNodePackages(dir)
			if err != nil || got != tc.want {
				t.Errorf("staleNodePackages = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := staleNodePackages(t.TempDir()); err == nil {
		t.Error("no package-lock.json: no error")
	}
}
