package release

// Checks of real release builds, shared by the always-on test of this
// platform's packages (npm_test.go) and the opt-in test of all six
// (all_targets_test.go).

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/plugin"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// checkFormat checks that the executable at path is in tg's format for
// tg's architecture: PE, Mach-O or ELF.
func checkFormat(t *testing.T, path string, tg Target) {
	t.Helper()
	var got string
	switch tg.GOOS {
	case "windows":
		f, err := pe.Open(path)
		if err != nil {
			t.Fatalf("%s: not a PE executable: %v", path, err)
		}
		defer f.Close()
		got = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
		if f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			t.Errorf("%s: a PE file that is not an executable image", path)
		}
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			t.Fatalf("%s: not a Mach-O executable: %v", path, err)
		}
		defer f.Close()
		got = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
		if f.Type != macho.TypeExec {
			t.Errorf("%s: Mach-O type %v, want an executable", path, f.Type)
		}
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			t.Fatalf("%s: not an ELF executable: %v", path, err)
		}
		defer f.Close()
		got = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
		if f.Type != elf.ET_EXEC {
			t.Errorf("%s: ELF type %v, want ET_EXEC (a static executable)", path, f.Type)
		}
	}
	if got != tg.GOARCH {
		t.Errorf("%s: built for %q, want %s", path, got, tg.GOARCH)
	}
}

// runBinary runs the release binary exe (built for this machine): its
// --version names version, and install-plugin --dir writes the embedded
// plugin, byte for byte the committed build.
func runBinary(t *testing.T, exe, version string) {
	t.Helper()
	r := kit.Run(t, time.Minute, kit.Options{}, exe, "--version")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "studio-bridge "+version+" (") {
		t.Errorf("%s --version: exit %d, stdout %q, stderr %q; want studio-bridge %s", exe, r.Code, r.Stdout, r.Stderr, version)
	}
	dir := t.TempDir()
	r = kit.Run(t, time.Minute, kit.Options{}, exe, "install-plugin", "--dir", dir)
	if r.Code != 0 {
		t.Fatalf("%s install-plugin --dir: exit %d, stderr %q", exe, r.Code, r.Stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, commands.PluginFileName))
	if err != nil {
		t.Fatal(err)
	}
	// the committed build, paired with the test's token for the default
	// port (the child runs with the test's config directory)
	want, err := plugin.Pair(plugin.RBXM, authtoken.PairingKey(kit.Token(t).Value), protocol.DefaultPort)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || len(got) == 0 {
		t.Errorf("install-plugin wrote %d bytes, not the %d of plugin/build/StudioBridge.rbxm paired with the test's token", len(got), len(want))
	}
}

// npmEnv is the environment of npm in the tests: a fresh cache and a
// registry on a loopback port nothing listens on, offline, so that an
// install must make do with the tarballs it is given.
func npmEnv(t *testing.T) []string {
	t.Helper()
	return []string{
		"npm_config_cache=" + filepath.Join(t.TempDir(), "npm-cache"),
		"npm_config_registry=http://127.0.0.1:" + strconv.Itoa(kit.FreePort(t)) + "/",
		"npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false",
		"npm_config_update_notifier=false",
	}
}

// npmInstall packs every package folder in dirs with npm pack, installs
// the tarballs into a new project (the main package as a dependency, the
// platform packages as optional ones, as a user's npm would meet them) and
// returns the project's folder. Only this platform's package may land.
func npmInstall(t *testing.T, dirs []string, host Target) string {
	t.Helper()
	env := npmEnv(t)
	packed := t.TempDir()
	deps, optional := map[string]string{}, map[string]string{}
	for _, dir := range dirs {
		r := kit.Run(t, 2*time.Minute, kit.Options{Env: env}, npmPath(t), "pack", dir, "--pack-destination", packed)
		if r.Code != 0 {
			t.Fatalf("npm pack %s: exit %d\n%s%s", dir, r.Code, r.Stdout, r.Stderr)
		}
		tgz := filepath.Join(packed, strings.TrimSpace(lastLine(r.Stdout)))
		name := readPackageJSON(t, dir).Name
		if name == NPMPackage {
			deps[name] = "file:" + filepath.ToSlash(tgz)
		} else {
			optional[name] = "file:" + filepath.ToSlash(tgz)
		}
	}
	project := t.TempDir()
	manifest := fmt.Sprintf(`{"private": true, "dependencies": %s, "optionalDependencies": %s}`, mustJSON(deps), mustJSON(optional))
	if err := os.WriteFile(filepath.Join(project, "package.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	r := kit.Run(t, 3*time.Minute, kit.Options{Dir: project, Env: env}, npmPath(t), "install")
	if r.Code != 0 {
		t.Fatalf("npm install (offline) of %s: exit %d\n%s%s", manifest, r.Code, r.Stdout, r.Stderr)
	}
	entries, err := os.ReadDir(filepath.Join(project, "node_modules", "@studio-bridge"))
	if err != nil {
		t.Fatal(err)
	}
	var installed []string
	for _, e := range entries {
		installed = append(installed, "@studio-bridge/"+e.Name())
	}
	if want := []string{NPMPackage, host.NPMName()}; !slices.Equal(installed, want) {
		t.Errorf("npm installed %q, want %q: only this platform's binary package", installed, want)
	}
	return project
}

// checkNPX runs the installed package through npx, as an MCP client's
// config does (npx -y <package> ...), from the project: --version is the
// binary's, and a usage error's exit code and stderr come through.
func checkNPX(t *testing.T, project, version string) {
	t.Helper()
	env := npmEnv(t)
	r := kit.Run(t, 2*time.Minute, kit.Options{Dir: project, Env: env}, npxPath(t), "-y", NPMPackage, "--version")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "studio-bridge "+version+" (") {
		t.Errorf("npx -y %s --version: exit %d, stdout %q, stderr %q; want studio-bridge %s", NPMPackage, r.Code, r.Stdout, r.Stderr, version)
	}
	r = kit.Run(t, 2*time.Minute, kit.Options{Dir: project, Env: env}, npxPath(t), "-y", NPMPackage, "exec")
	if r.Code != 2 || !strings.Contains(r.Stderr, "exec needs <script>") {
		t.Errorf("npx -y %s exec: exit %d, stderr %q; want the binary's usage error and exit 2", NPMPackage, r.Code, r.Stderr)
	}
}

// checkShimSignal starts `serve` through the installed shim and sends the
// shim alone Ctrl-C (SIGINT; Ctrl-Break to its group on Windows): the
// binary must stop as after its own Ctrl-C, handing the port back, and the
// shim exit with the binary's 0.
func checkShimSignal(t *testing.T, project string) {
	t.Helper()
	port := kit.FreePort(t)
	shim := filepath.Join(project, "node_modules", "@studio-bridge", "cli", "bin", "studio-bridge.js")
	cmd := exec.Command(nodePath(t), shim, "serve", "--port", strconv.Itoa(port))
	cmd.Env = kit.ChildEnv(t)
	// A file, not a pipe: should the binary outlive the shim, Wait must not
	// wait for it to close the pipe.
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	kit.Interruptible(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type health struct {
		Status string `json:"status"`
		PID    int    `json:"pid"`
	}
	h := kit.WaitHealth(t, port, 30*time.Second, "the binary behind the shim to serve", func(h health) bool {
		return h.Status == "ok" && h.PID != 0 && h.PID != cmd.Process.Pid
	})
	t.Cleanup(func() { kit.StopPID(t, h.PID) }) // the binary, should it outlive the shim
	if code := kit.InterruptAndWait(t, cmd, 30*time.Second); code != 0 {
		out, _ := os.ReadFile(stderr.Name())
		t.Errorf("the shim exited %d after Ctrl-C, want the binary's 0; stderr:\n%s", code, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d still held after the shim exited (the binary outlived it?): %v", port, err)
	}
	ln.Close()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func mustJSON(v any) string {
	s, err := toJSON(v)
	if err != nil {
		panic(err)
	}
	return s
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not on PATH: the npm packages' tests need Node.js 20 or newer with npm (%v)", name, err)
	}
	return p
}

func nodePath(t *testing.T) string { return lookPath(t, "node") }
func npmPath(t *testing.T) string  { return lookPath(t, "npm") }
func npxPath(t *testing.T) string  { return lookPath(t, "npx") }

// hostTarget is the release target of this machine.
func hostTarget(t *testing.T) Target {
	t.Helper()
	tg, ok := TargetFor(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Fatalf("no release target for this machine (%s/%s): the release tests run on one of the six", runtime.GOOS, runtime.GOARCH)
	}
	return tg
}
