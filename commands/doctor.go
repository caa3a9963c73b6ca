package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// DoctorArgs are doctor's arguments.
type DoctorArgs struct {
	Active bool `json:"active" usage:"also run probes that change something for a moment: open one extra web stream in each window, and start a short playtest in each window in Edit mode, then stop it (doctor says so first)"`
}

// Check statuses: ok, degraded (works, with what the plugin does instead),
// failed (does not work; Fix says what to do), n/a (does not apply here).
const (
	StatusOK       = "ok"
	StatusDegraded = "degraded"
	StatusFailed   = "failed"
	StatusNA       = "n/a"
)

// Check is one finding of doctor, under a key fixed in docs/doctor.md.
type Check struct {
	Key    string `json:"key"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
	// Window is the Studio window (instance ID) a studio.* check is about.
	Window string `json:"window,omitempty"`
}

// DoctorData is doctor's output: `studio-bridge doctor --json`, the report
// users attach to bug reports and the emulator loads with --from-doctor.
type DoctorData struct {
	Checks []Check `json:"checks"`
}

// Network is where this process meets the bridge, as the surface's flags
// set it; doctor reports it.
type Network struct {
	Port int
	// PortFrom says where Port came from: "default", or the flag/variable.
	PortFrom  string
	Remote    string
	ConfigDir string
}

// Doctor checks this machine, the bridge host and every connected Studio
// window, and says for each finding what the plugin does instead and what
// the user should do.
var Doctor = Define(Spec[DoctorArgs, DoctorData]{
	Definition: Definition{
		Name:    "doctor",
		Summary: "Check the bridge host, the token, the plugin and every connected Studio window; attach `doctor --json` to bug reports.",
		Local:   true, // it looks at the port before it joins anything
		Timeout: 10 * time.Second,
		Noun:    "Doctor's probe",
	},
	Run: func(ctx context.Context, env *Env, args *DoctorArgs) (*Result, error) {
		d := DoctorData{Checks: localChecks(ctx, env.Network, env.Auth)}
		d.Checks = append(d.Checks, studioChecks(ctx, env, args, hostAnswered(d.Checks), func(te *bridge.TokenError) {
			// the token is there but is not the host's: that check fails
			for i := range d.Checks {
				if d.Checks[i].Key == "token.file" {
					d.Checks[i].Status, d.Checks[i].Detail = StatusFailed, te.Error()
					d.Checks[i].Fix = "give this process the bridge host's config directory (" + authtoken.EnvConfigDir + "; for an MCP server in its client entry's env block) or set " + authtoken.EnvToken
				}
			}
		})...)
		res := &Result{Data: d, Render: func() string { return d.String() }}
		if n := d.count(StatusFailed); n > 0 {
			res.Failure = fmt.Sprintf("doctor: %d check(s) failed; each says what to do", n)
		}
		return res, nil
	},
})

func (d DoctorData) count(status string) int {
	n := 0
	for _, c := range d.Checks {
		if c.Status == status {
			n++
		}
	}
	return n
}

// String is the report for people: one line per check, then its detail
// and fix indented.
func (d DoctorData) String() string {
	var b strings.Builder
	for _, c := range d.Checks {
		key := c.Key
		if c.Window != "" {
			key += " [" + c.Window + "]"
		}
		fmt.Fprintf(&b, "%-9s %s: %s\n", c.Status, key, c.Detail)
		if c.Fix != "" && c.Status != StatusOK {
			fmt.Fprintf(&b, "          → %s\n", c.Fix)
		}
	}
	return b.String()
}

// hostAnswered: the host.reachable check found a host to join (or a free
// port this process may take).
func hostAnswered(checks []Check) bool {
	for _, c := range checks {
		if c.Key == "host.reachable" {
			return c.Status == StatusOK
		}
	}
	return false
}

// localChecks look at this process and this machine only: the port and
// config directory it uses, who holds the port, the token file and the
// installed plugin file. Nothing is created or joined.
func localChecks(ctx context.Context, n Network, auth authtoken.Settings) []Check {
	if n.Port == 0 {
		n.Port = protocol.DefaultPort
	}
	if n.PortFrom == "" {
		n.PortFrom = "default"
	}
	out := []Check{{Key: "host.port", Status: StatusOK, Detail: fmt.Sprintf("port %d (%s)", n.Port, n.PortFrom)}}
	if n.Remote != "" {
		out[0].Detail = fmt.Sprintf("host at %s (--remote / STUDIO_BRIDGE_REMOTE); no local port is used", n.Remote)
	}
	out = append(out, configDirCheck(n.ConfigDir), tokenCheck(auth))
	out = append(out, hostChecks(ctx, n)...)
	return append(out, pluginFileCheck())
}

func configDirCheck(dir string) Check {
	c := Check{Key: "config.dir"}
	if dir == "" {
		c.Status, c.Detail = StatusFailed, "no per-user configuration directory: the token and host file have nowhere to live"
		c.Fix = "set " + authtoken.EnvConfigDir + " to a private directory, or " + authtoken.EnvToken + " to the token"
		return c
	}
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		c.Status, c.Detail = StatusOK, dir+" (not created yet; the first command that needs it creates it)"
	case err != nil:
		c.Status, c.Detail, c.Fix = StatusFailed, fmt.Sprintf("%s: %v", dir, err), "make "+dir+" readable by you, or set "+authtoken.EnvConfigDir
	case !fi.IsDir():
		c.Status, c.Detail, c.Fix = StatusFailed, dir+" is not a directory", "remove "+dir+", or set "+authtoken.EnvConfigDir+" elsewhere"
	default:
		c.Status, c.Detail = StatusOK, dir
	}
	return c
}

func tokenCheck(auth authtoken.Settings) Check {
	c := Check{Key: "token.file"}
	if dir := auth.ConfigDir; auth.Token == "" && dir != "" {
		if _, err := os.Stat(filepath.Join(dir, authtoken.FileName)); os.IsNotExist(err) {
			c.Status, c.Detail = StatusOK, "no token yet; the first host or client creates "+filepath.Join(dir, authtoken.FileName)
			return c
		}
	}
	tok, err := auth.Resolve() // reads an existing file; never prints the secret
	if err != nil {
		c.Status, c.Detail = StatusFailed, err.Error()
		c.Fix = "follow the error; a removed token file is made again (restart every studio-bridge process then)"
		return c
	}
	c.Status, c.Detail = StatusOK, "token from "+tok.Source
	return c
}

// hostChecks: who holds the port (bridge.WhoHolds), and the host's version.
func hostChecks(ctx context.Context, n Network) []Check {
	reach := Check{Key: "host.reachable"}
	ver := Check{Key: "host.version", Status: StatusNA, Detail: "no host is running"}
	if n.Remote != "" {
		reach.Status, reach.Detail = StatusOK, "joining "+n.Remote+" below (a remote host is not probed from here)"
		ver.Detail = "a remote host's version is checked when joining it"
		return []Check{reach, ver}
	}
	h := bridge.WhoHolds(ctx, n.ConfigDir, n.Port)
	switch h.Kind {
	case bridge.HolderNone:
		reach.Status, reach.Detail = StatusOK, fmt.Sprintf("no host holds port %d; doctor becomes the host to look for Studio (any command does)", n.Port)
	case bridge.HolderHost:
		reach.Status = StatusOK
		reach.Detail = fmt.Sprintf("a studio-bridge host (pid %d) answers on port %d with %d session(s), %d client(s)", h.Health.PID, n.Port, h.Health.Sessions, h.Health.Clients)
		ver = versionCheck(h.Health)
	case bridge.HolderDraining:
		reach.Status, reach.Detail = StatusDegraded, fmt.Sprintf("the host (pid %d) is handing over to another process; commands wait for it", h.Health.PID)
		reach.Fix = "wait a few seconds and run doctor again"
		ver = versionCheck(h.Health)
	case bridge.HolderStopped:
		reach.Status, reach.Detail = StatusFailed, fmt.Sprintf("a studio-bridge host (pid %d) holds port %d but does not answer: it is stopped or hung", h.PID, n.Port)
		reach.Fix = fmt.Sprintf("resume it (fg, or kill -CONT %d) or end it (kill %d)", h.PID, h.PID)
	case bridge.HolderStranger:
		reach.Status, reach.Detail = StatusFailed, fmt.Sprintf("port %d is held by another program (%s)", n.Port, h.Detail)
		reach.Fix = "stop that program, or use another port with --port / STUDIO_BRIDGE_PORT and set the same port in the plugin's settings"
	default:
		reach.Status, reach.Detail, reach.Fix = StatusFailed, "the probe did not finish: "+h.Detail, "run doctor again"
	}
	return []Check{reach, ver}
}

func versionCheck(h bridge.Health) Check {
	c := Check{Key: "host.version", Status: StatusOK, Detail: fmt.Sprintf("host %s, protocol %d", h.Version, h.ProtocolVersion)}
	switch {
	case h.ProtocolVersion != protocol.Version:
		c.Status = StatusFailed
		c.Detail = fmt.Sprintf("the host speaks protocol %d, this binary %d: they cannot work together", h.ProtocolVersion, protocol.Version)
		c.Fix = fmt.Sprintf("stop the host (pid %d) so this version takes over, or use the host's version of studio-bridge", h.PID)
	case h.Version != Version:
		c.Status = StatusDegraded
		c.Detail = fmt.Sprintf("the host runs %s, this binary is %s (same protocol, so commands work)", h.Version, Version)
		c.Fix = fmt.Sprintf("to run this version as the host, stop the host (pid %d); the next command takes over", h.PID)
	}
	return c
}

// pluginFileCheck: the plugin file install-plugin writes, where Studio
// loads it; n/a where Studio does not run.
func pluginFileCheck() Check {
	c := Check{Key: "plugin.installed"}
	dir, err := DefaultPluginsDir()
	if err != nil {
		c.Status, c.Detail = StatusNA, "no Studio plugins folder here"
		if runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
			c.Detail = "Roblox Studio does not run on " + runtime.GOOS
		}
		return c
	}
	path := filepath.Join(dir, PluginFileName)
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Mode().IsRegular():
		c.Status, c.Detail = StatusOK, fmt.Sprintf("%s (%d bytes)", path, fi.Size())
	case os.IsNotExist(err):
		c.Status, c.Detail, c.Fix = StatusFailed, "no plugin at "+path, "run studio-bridge install-plugin, then reopen the place in Studio"
	default:
		c.Status, c.Detail, c.Fix = StatusFailed, fmt.Sprintf("%s: %v", path, err), "run studio-bridge install-plugin"
	}
	return c
}

// probeKeys are the per-window checks read from the probe (readFacts), and
// studioKeys all per-window checks, in report order: the probe's, then the
// source map's (doctor_sourcemap.go).
var (
	probeKeys = []string{"studio.streams", "studio.settings", "studio.pluginConnection", "studio.pluginsInTest",
		"studio.sourceLimit", "studio.capture", "studio.recordingInPlay", "studio.runService", "studio.http"}
	studioKeys = append(slices.Clip(probeKeys), "studio.sourceMap")
)

// allNA marks every key n/a for one reason.
func allNA(keys []string, why string) []Check {
	out := make([]Check, 0, len(keys))
	for _, k := range keys {
		out = append(out, Check{Key: k, Status: StatusNA, Detail: why})
	}
	return out
}

// studioChecks join the bridge (a client of the host, or the host) and
// probe every connected window's edit session.
//
// A join refused for the token calls wrongToken and points the checks to
// token.file, rather than repeating the long error on every line.
func studioChecks(ctx context.Context, env *Env, args *DoctorArgs, reachable bool, wrongToken func(*bridge.TokenError)) []Check {
	keys := append([]string{"plugin.version"}, studioKeys...)
	conn := env.Bridge
	if conn == nil && reachable && env.Join != nil {
		var err error
		if conn, err = env.Join(); err != nil {
			var te *bridge.TokenError
			if errors.As(err, &te) {
				wrongToken(te)
				return allNA(keys, "could not join the bridge: wrong token (see token.file)")
			}
			return allNA(keys, "could not join the bridge: "+err.Error())
		}
	}
	if conn == nil {
		return allNA(keys, "no bridge host to ask (see host.reachable)")
	}
	done := env.StatusAfter("looking for Studio windows…")
	list, err := conn.Sessions(ctx)
	done()
	if err != nil {
		return allNA(keys, "could not list sessions: "+err.Error())
	}
	instances := bridge.GroupByInstance(list)
	if len(instances) == 0 {
		why := "no Studio window is connected (is Studio open with the plugin enabled, on the same port?)"
		if _, err := DefaultPluginsDir(); err != nil {
			why = "Roblox Studio does not run on " + runtime.GOOS + ", and no Studio window is connected"
		}
		return allNA(keys, why)
	}
	if args.Active && env.Stderr != nil {
		fmt.Fprintln(env.Stderr, "doctor --active: each window's plugin opens one extra web stream to the host, then closes it")
	}
	var out []Check
	for _, in := range instances {
		out = append(out, windowChecks(ctx, env, conn, in, args.Active)...)
	}
	return out
}
