package emulator_test

// End to end: the real studio-bridge binary as host, the real plugin source
// running in emulated Studio windows (node bin/studio.mjs), and this test as
// a bridge client (bridge.Connect) calling every action in Edit and in Play
// (edit, server, client), comparing answers with fixtures/default.json; then
// a kill -9 of the host while a standby `serve` stays up, after which the
// real plugin must reconnect to the new host and keep its session ids.
//
// Needs Node 20+ and `npm ci --prefix test/emulator`; it fails (never skips)
// without them.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

var (
	setupErr  error // why the emulator cannot run here, reported by every test
	nodePath  string
	fixture   fixtureFile
	rawFix    []byte
	emulatorD string // test/emulator, the working directory of go test
)

func TestMain(m *testing.M) {
	flag.Parse()
	emulatorD, _ = os.Getwd()
	setupErr = checkNode()
	if setupErr == nil {
		rawFix, setupErr = os.ReadFile(filepath.Join(emulatorD, "fixtures", "default.json"))
		if setupErr == nil {
			setupErr = json.Unmarshal(rawFix, &fixture)
		}
	}
	kit.Main(m)
}

func checkNode() error {
	p, err := exec.LookPath("node")
	if err != nil {
		return errors.New("node is not on PATH: the Studio emulator needs Node.js 20 or newer")
	}
	nodePath = p
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return fmt.Errorf("node --version: %w", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	if major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); major < 20 {
		return fmt.Errorf("node %s is too old: the Studio emulator needs Node.js 20 or newer", v)
	}
	for _, dep := range []string{"luau-web", "ws", "@rbxts/types"} {
		if _, err := os.Stat(filepath.Join("node_modules", dep, "package.json")); err != nil {
			return fmt.Errorf("test/emulator/node_modules is missing %s: run `npm ci --prefix test/emulator` first", dep)
		}
	}
	return nil
}

func requireSetup(t *testing.T) {
	t.Helper()
	kit.SkipIfShort(t, "runs the Studio emulator (Node) against the real binary")
	if setupErr != nil {
		t.Fatal(setupErr)
	}
}

// ---------------------------------------------------------------------------
// processes

// proc is a process (studio-bridge or an emulated Studio window) running in
// test/emulator, its stdout and stderr in one log, with a stdin for
// emulator commands (proc.Send).
type proc = kit.Proc

func startProc(t *testing.T, name string, path string, args ...string) *proc {
	t.Helper()
	return kit.Start(t, name, kit.Options{Dir: emulatorD, Combined: true, Stdin: true}, path, args...)
}

// startServe starts the studio-bridge host on port and waits until it serves.
func startServe(t *testing.T, name string, port int) *proc {
	t.Helper()
	return kit.Serve(t, name, port, kit.Options{Dir: emulatorD, Combined: true})
}

// startWindow is most tests' start: a host on a free port, one emulated
// Studio window on it (started with args) and this test joined to the host
// as a client.
func startWindow(t *testing.T, args ...string) (port int, studio *proc, b *bridge.Bridge) {
	t.Helper()
	requireSetup(t)
	port = kit.FreePort(t)
	startServe(t, "serve", port)
	studio = kit.Studio(t, "studio", port, args...)
	return port, studio, connect(t, port)
}

// editWindow is startWindow for one quiet window of instance in Edit,
// once its edit session is listed; it returns that session too.
func editWindow(t *testing.T, instance string) (port int, studio *proc, b *bridge.Bridge, edit protocol.SessionInfo) {
	t.Helper()
	port, studio, b = startWindow(t, "--instance", instance, "--quiet")
	edit = waitSessions(t, b, instance, protocol.ContextEdit)[protocol.ContextEdit]
	return port, studio, b, edit
}

func connect(t *testing.T, port int) *bridge.Bridge {
	t.Helper()
	return bridgekit.Connect(t, bridge.Options{Port: port, Version: "0.0.0-e2e"})
}

func sessions(t testing.TB, b *bridge.Bridge) []protocol.SessionInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := b.Sessions(ctx)
	if err != nil {
		return nil
	}
	return s
}

// backInEdit waits until the window has only its edit session and that
// session reports Edit.
func backInEdit(t *testing.T, b *bridge.Bridge, instance string) {
	t.Helper()
	kit.WaitFor(t, 15*time.Second, instance+" back in Edit", func() bool {
		var n int
		for _, s := range sessions(t, b) {
			if s.InstanceID != instance {
				continue
			}
			if s.Context != protocol.ContextEdit || s.State != protocol.StateEdit {
				return false
			}
			n++
		}
		return n == 1
	})
}

// waitSessions waits until the bridge lists exactly the wanted contexts of
// one instance and returns them by context.
func waitSessions(t testing.TB, b *bridge.Bridge, instance string, contexts ...protocol.Context) map[protocol.Context]protocol.SessionInfo {
	t.Helper()
	var got map[protocol.Context]protocol.SessionInfo
	kit.WaitFor(t, 20*time.Second, fmt.Sprintf("sessions %v of instance %s", contexts, instance), func() bool {
		got = map[protocol.Context]protocol.SessionInfo{}
		for _, s := range sessions(t, b) {
			if s.InstanceID == instance {
				got[s.Context] = s
			}
		}
		if len(got) != len(contexts) {
			return false
		}
		for _, c := range contexts {
			if _, ok := got[c]; !ok {
				return false
			}
		}
		return true
	})
	return got
}

type callResult struct {
	payload  json.RawMessage
	progress []json.RawMessage
	err      error
}

func call(t *testing.T, b *bridge.Bridge, sessionID, action string, payload any) callResult {
	t.Helper()
	var raw json.RawMessage
	if payload != nil {
		data, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		raw = data
	}
	var mu sync.Mutex
	var progress []json.RawMessage
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := b.Call(ctx, sessionID, action, raw, bridge.CallOptions{
		Timeout: 25 * time.Second,
		OnProgress: func(p json.RawMessage) {
			mu.Lock()
			progress = append(progress, append(json.RawMessage(nil), p...))
			mu.Unlock()
		},
	})
	mu.Lock()
	defer mu.Unlock()
	return callResult{payload: out, progress: progress, err: err}
}

func mustCall(t *testing.T, b *bridge.Bridge, sessionID, action string, payload any, into any) callResult {
	t.Helper()
	r := call(t, b, sessionID, action, payload)
	if r.err != nil {
		t.Fatalf("%s %v: %v", action, payload, r.err)
	}
	if into != nil {
		if err := json.Unmarshal(r.payload, into); err != nil {
			t.Fatalf("%s: decode %s: %v", action, r.payload, err)
		}
	}
	return r
}

func wantCode(t *testing.T, r callResult, code protocol.Code) *protocol.Error {
	t.Helper()
	var perr *protocol.Error
	if !errors.As(r.err, &perr) || perr.Code != code {
		t.Fatalf("want a %s error, got payload %s err %v", code, r.payload, r.err)
	}
	return perr
}

// awaitLogEvents collects the next n live log events whose body keep
// accepts, in arrival order, failing the test after 10 s.
func awaitLogEvents(t *testing.T, events <-chan protocol.Event, n int, keep func(body string) bool) []protocol.Event {
	t.Helper()
	var got []protocol.Event
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case ev := <-events:
			var l struct {
				Body string `json:"body"`
			}
			if ev.Event == "log" && json.Unmarshal(ev.Payload, &l) == nil && keep(l.Body) {
				got = append(got, ev)
			}
		case <-timeout:
			t.Fatalf("log events: got %d of %d", len(got), n)
		}
	}
	return got
}

// jsonEqual compares two JSON documents semantically.
func jsonEqual(t *testing.T, what string, got json.RawMessage, want any) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	wantJSON, _ := json.Marshal(want)
	_ = json.Unmarshal(wantJSON, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", what, got, wantJSON)
	}
}

// ---------------------------------------------------------------------------
// the fixture

type fixtureNode struct {
	ClassName  string                     `json:"className"`
	Name       string                     `json:"name"`
	Properties map[string]json.RawMessage `json:"properties"`
	Attributes map[string]json.RawMessage `json:"attributes"`
	Children   []fixtureNode              `json:"children"`
}

type fixtureFile struct {
	Place struct {
		Name    string `json:"name"`
		PlaceID int64  `json:"placeId"`
		GameID  int64  `json:"gameId"`
	} `json:"place"`
	Screenshot struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"screenshot"`
	Tree []fixtureNode `json:"tree"`
}

func (f fixtureFile) node(t *testing.T, path ...string) fixtureNode {
	t.Helper()
	nodes := f.Tree
	var n fixtureNode
	for _, name := range path {
		found := false
		for _, c := range nodes {
			if c.Name == name {
				n, nodes, found = c, c.Children, true
				break
			}
		}
		if !found {
			t.Fatalf("fixture has no %v", path)
		}
	}
	return n
}

// ---------------------------------------------------------------------------
// payload shapes

type stateReply struct {
	State     string `json:"state"`
	PlaceName string `json:"placeName"`
	PlaceID   int64  `json:"placeId"`
	GameID    int64  `json:"gameId"`
}

type node struct {
	Name       string                     `json:"name"`
	ClassName  string                     `json:"className"`
	Path       string                     `json:"path"`
	Properties map[string]json.RawMessage `json:"properties"`
	Attributes map[string]json.RawMessage `json:"attributes"`
	ChildCount int                        `json:"childCount"`
	Children   []node                     `json:"children"`
}

type logLine struct {
	Level string `json:"level"`
	Body  string `json:"body"`
}

type execReply struct {
	Success      bool              `json:"success"`
	Error        string            `json:"error"`
	ReturnValues []json.RawMessage `json:"returnValues"`
	Logs         []logLine         `json:"logs"`
}

type logsReply struct {
	Entries []struct {
		Level     string `json:"level"`
		Body      string `json:"body"`
		Timestamp int64  `json:"timestamp"`
		Seq       int64  `json:"seq"`
	} `json:"entries"`
	Total          int `json:"total"`
	BufferCapacity int `json:"bufferCapacity"`
}

type screenshotReply struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Format string `json:"format"`
	Data   string `json:"data"`
}

// checkScreenshot decodes the RGBA payload and compares it with the
// emulator's deterministic image (test/emulator/README.md).
func checkScreenshot(t *testing.T, r callResult) {
	t.Helper()
	var s screenshotReply
	if err := json.Unmarshal(r.payload, &s); err != nil {
		t.Fatal(err)
	}
	if s.Format != "rgba8" || s.Width != shotW || s.Height != shotH {
		t.Fatalf("screenshot %dx%d %s, want %dx%d rgba8", s.Width, s.Height, s.Format, shotW, shotH)
	}
	pix, err := base64.StdEncoding.DecodeString(s.Data)
	if err != nil {
		t.Fatalf("screenshot data: %v", err)
	}
	if len(pix) != s.Width*s.Height*4 {
		t.Fatalf("screenshot has %d bytes, want %d", len(pix), s.Width*s.Height*4)
	}
	for y := 0; y < s.Height; y++ {
		for x := 0; x < s.Width; x++ {
			o := (y*s.Width + x) * 4
			p := emulatorPixel(x, y, s.Width, s.Height)
			if want := []byte{p.R, p.G, p.B, p.A}; !bytes.Equal(pix[o:o+4], want) {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, pix[o:o+4], p)
			}
		}
	}
}

// The emulator's default viewport (--viewport), and the screenshot the
// plugin returns of it: downscaled to fit 1024x1024 (plugin/README.md,
// "screenshot").
const (
	viewportW, viewportH = 1920, 1080
	shotW, shotH         = 1024, 576
)

// emulatorPixel is pixel (x, y) of a w x h screenshot of the emulator's
// deterministic viewport image (test/emulator/README.md, "The screenshot"),
// sampled from the viewport (nearest).
func emulatorPixel(x, y, w, h int) color.NRGBA {
	sx, sy := x*viewportW/w, y*viewportH/h
	return color.NRGBA{R: uint8(sx * 255 / (viewportW - 1)), G: uint8(sy * 255 / (viewportH - 1)), B: uint8((sx ^ sy) & 255), A: 255}
}

// cli runs the studio-bridge binary as a user would, against the host on
// port, in a folder of its own.
func cli(t *testing.T, port int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return cliIn(t, t.TempDir(), port, args...)
}

// cliIn runs the binary in dir, as a user in that folder would, against
// the host on port.
func cliIn(t *testing.T, dir string, port int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := userCmd(t, dir, port, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	default:
		t.Fatalf("studio-bridge %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// userCmd is the binary as a user in dir runs it against the host on port
// (STUDIO_BRIDGE_PORT, as a shell profile sets it), not yet started: for
// runs that need more than cliIn gives (a terminal, stdin, a signal, an MCP
// transport). An empty dir is test/emulator.
func userCmd(t *testing.T, dir string, port int, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), args...)
	cmd.Dir = dir
	cmd.Env = kit.ChildEnv(t, "STUDIO_BRIDGE_PORT="+strconv.Itoa(port))
	return cmd
}

// checkPNGScreenshot takes a screenshot with `studio-bridge screenshot` (the
// host's PNG, end to end) and decodes it with image/png: its size and its
// pixels must be the emulator's image.
func checkPNGScreenshot(t *testing.T, port int, extra ...string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "shot.png")
	// A generous --timeout, as call gives its direct calls: this checks the
	// PNG, not the speed of the emulator's Luau downscale of a 1920x1080
	// capture (about 9 s of CPU, past the default 15 s on a doubled suite).
	out, errOut, code := cli(t, port, append([]string{"screenshot", "-o", file, "--json", "--timeout", "60s"}, extra...)...)
	if code != 0 {
		t.Fatalf("screenshot exited %d:\n%s\n%s", code, out, errOut)
	}
	var data struct {
		Path          string
		Width, Height int
		Bytes         int
	}
	if err := json.Unmarshal([]byte(out), &data); err != nil {
		t.Fatalf("screenshot --json: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != data.Bytes || data.Path != file {
		t.Errorf("screenshot reported %+v; the file has %d bytes", data, len(raw))
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || format != "png" {
		t.Fatalf("the file is not a PNG: %v (%s)", err, format)
	}
	w, h := shotW, shotH
	if cfg.Width != w || cfg.Height != h || data.Width != w || data.Height != h {
		t.Fatalf("PNG %dx%d (reported %dx%d), want %dx%d", cfg.Width, cfg.Height, data.Width, data.Height, w, h)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decode PNG: %v", err)
	}
	if b := img.Bounds(); b != image.Rect(0, 0, w, h) {
		t.Fatalf("PNG bounds %v", b)
	}
	// a few named pixels first (readable failures), then all of them
	for _, p := range [][2]int{{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}, {100, 50}, {w / 2, h / 2}, {37, 151}} {
		got := color.NRGBAModel.Convert(img.At(p[0], p[1])).(color.NRGBA)
		if want := emulatorPixel(p[0], p[1], w, h); got != want {
			t.Errorf("PNG pixel (%d,%d) = %v, want %v", p[0], p[1], got, want)
		}
	}
	bad := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA) != emulatorPixel(x, y, w, h) {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d PNG pixels differ from the emulator's image", bad, w*h)
	}
}

// ---------------------------------------------------------------------------
// tests

func TestEditWindowEveryAction(t *testing.T) {
	port, studio, b := startWindow(t, "--instance", "E2E-EDIT")
	s := waitSessions(t, b, "E2E-EDIT", protocol.ContextEdit)[protocol.ContextEdit]
	if s.State != protocol.StateEdit || s.PlaceName != fixture.Place.Name || s.PluginVersion != "0.1.0" {
		t.Errorf("session %+v", s)
	}
	id := s.SessionID

	t.Run("state", func(t *testing.T) {
		var st stateReply
		mustCall(t, b, id, "state", map[string]any{}, &st)
		want := stateReply{"Edit", fixture.Place.Name, fixture.Place.PlaceID, fixture.Place.GameID}
		if st != want {
			t.Errorf("state %+v, want %+v", st, want)
		}
	})

	t.Run("query matches the fixture", func(t *testing.T) {
		want := fixture.node(t, "Workspace", "SpawnLocation")
		props := make([]string, 0, len(want.Properties))
		for k := range want.Properties {
			props = append(props, k)
		}
		sort.Strings(props)
		var r struct{ Instance node }
		mustCall(t, b, id, "query", map[string]any{"path": "Workspace.SpawnLocation", "properties": props, "includeAttributes": true}, &r)
		if r.Instance.ClassName != want.ClassName || r.Instance.Path != "game.Workspace.SpawnLocation" {
			t.Errorf("instance %+v", r.Instance)
		}
		for _, p := range props {
			jsonEqual(t, "property "+p, r.Instance.Properties[p], want.Properties[p])
		}
		for k, v := range want.Attributes {
			jsonEqual(t, "attribute "+k, r.Instance.Attributes[k], v)
		}
		if len(r.Instance.Attributes) != len(want.Attributes) {
			t.Errorf("attributes %v, want %d", r.Instance.Attributes, len(want.Attributes))
		}
	})

	t.Run("query depth, dotted names, children, services", func(t *testing.T) {
		var r struct{ Instance node }
		mustCall(t, b, id, "query", map[string]any{"path": "game.Workspace.Tower", "depth": 1, "properties": []string{"PrimaryPart"}}, &r)
		jsonEqual(t, "PrimaryPart", r.Instance.Properties["PrimaryPart"], map[string]any{"$type": "Instance", "className": "Part", "path": "game.Workspace.Tower.Base"})
		var paths []string
		for _, c := range r.Instance.Children {
			paths = append(paths, c.Path)
		}
		if !reflect.DeepEqual(paths, []string{"game.Workspace.Tower.Base", `game.Workspace.Tower["Top.Level"]`}) {
			t.Errorf("children %v", paths)
		}
		top := fixture.node(t, "Workspace", "Tower", "Top.Level")
		mustCall(t, b, id, "query", map[string]any{"path": `Workspace.Tower["Top.Level"]`, "properties": []string{"Position", "Size"}}, &r)
		jsonEqual(t, "Top.Level Position", r.Instance.Properties["Position"], top.Properties["Position"])
		jsonEqual(t, "Top.Level Size", r.Instance.Properties["Size"], top.Properties["Size"])

		var kids struct{ Children []node }
		mustCall(t, b, id, "query", map[string]any{"path": "ReplicatedStorage.Shared", "children": true, "properties": []string{"Value"}}, &kids)
		for _, c := range kids.Children {
			jsonEqual(t, c.Name, c.Properties["Value"], fixture.node(t, "ReplicatedStorage", "Shared", c.Name).Properties["Value"])
		}
		var svc struct {
			Services []struct{ Name, ClassName string }
		}
		mustCall(t, b, id, "query", map[string]any{"path": "game", "listServices": true}, &svc)
		have := map[string]bool{}
		for _, s := range svc.Services {
			have[s.Name] = true
		}
		for _, n := range fixture.Tree {
			if !have[n.Name] {
				t.Errorf("listServices lacks %s: %+v", n.Name, svc.Services)
			}
		}
	})

	t.Run("query returns typed sequences, ranges, fonts, rects, physical properties", func(t *testing.T) {
		for _, c := range []struct {
			path   string
			fix    []string
			types  map[string]string // property -> $type
			render map[string]string // property -> commands.FormatValue
		}{
			{
				"Workspace.Effects.Sparks", []string{"Workspace", "Effects", "Sparks"},
				map[string]string{"Size": "NumberSequence", "Transparency": "NumberSequence", "Color": "ColorSequence", "Lifetime": "NumberRange"},
				map[string]string{"Size": "NumberSequence(0: 0.5, 0.5: 1±0.25, 1: 0)", "Color": "ColorSequence(0: (1, 0.5, 0), 1: (1, 0, 0))", "Lifetime": "NumberRange(1, 2.5)"},
			},
			{
				"Workspace.Effects", []string{"Workspace", "Effects"},
				map[string]string{"CustomPhysicalProperties": "PhysicalProperties"},
				map[string]string{"CustomPhysicalProperties": "PhysicalProperties(density 0.7, friction 0.3, elasticity 0.5, frictionWeight 1, elasticityWeight 1)"},
			},
			{
				"StarterGui.Hud.Title", []string{"StarterGui", "Hud", "Title"},
				map[string]string{"FontFace": "Font"},
				map[string]string{"FontFace": "Font(SourceSansPro, Bold, Normal)"},
			},
			{
				"StarterGui.Hud.Frame9", []string{"StarterGui", "Hud", "Frame9"},
				map[string]string{"SliceCenter": "Rect"},
				map[string]string{"SliceCenter": "Rect(8, 8, 24, 24)"},
			},
		} {
			want := fixture.node(t, c.fix...)
			props := make([]string, 0, len(c.types))
			for p := range c.types {
				props = append(props, p)
			}
			sort.Strings(props)
			var r struct{ Instance node }
			mustCall(t, b, id, "query", map[string]any{"path": c.path, "properties": props}, &r)
			for _, p := range props {
				got := r.Instance.Properties[p]
				jsonEqual(t, c.path+"."+p, got, want.Properties[p])
				var v map[string]any
				_ = json.Unmarshal(got, &v)
				if v["$type"] != c.types[p] {
					t.Errorf("%s.%s: $type %v, want %s", c.path, p, v["$type"], c.types[p])
				}
				if text, ok := c.render[p]; ok {
					if s := commands.FormatValue(v); s != text {
						t.Errorf("%s.%s renders %q, want %q", c.path, p, s, text)
					}
				}
			}
		}
		// the same values as exec results, built by the script
		var r execReply
		mustCall(t, b, id, "exec", map[string]any{"script": "local e = workspace.Effects.Sparks\nreturn e.Lifetime, NumberSequence.new(0, 1), ColorSequence.new(Color3.new(1, 0, 0)), Font.fromEnum(Enum.Font.GothamBold)"}, &r)
		jsonEqual(t, "exec typed results", mustJSON(r.ReturnValues), []any{
			map[string]any{"$type": "NumberRange", "value": []any{1, 2.5}},
			map[string]any{"$type": "NumberSequence", "value": []any{[]any{0, 0, 0}, []any{1, 1, 0}}},
			map[string]any{"$type": "ColorSequence", "value": []any{[]any{0, 1, 0, 0}, []any{1, 1, 0, 0}}},
			map[string]any{"$type": "Font", "family": "rbxasset://fonts/families/GothamSSm.json", "weight": "Bold", "style": "Normal"},
		})
	})

	t.Run("query errors", func(t *testing.T) {
		r := call(t, b, id, "query", map[string]any{"path": "game.Workspace.NonExistent"})
		perr := wantCode(t, r, protocol.CodeInstanceNotFound)
		if perr.Message != "No instance found at path: game.Workspace.NonExistent" {
			t.Errorf("message %q", perr.Message)
		}
		jsonEqual(t, "details", perr.Details, map[string]any{"resolvedPath": "game.Workspace", "missingSegment": "NonExistent"})
		// people see which part of the path exists
		if _, errOut, code := cli(t, port, "query", "Workspace.NonExistent.Deeper", "--session", id); code != 1 ||
			!strings.Contains(errOut, `game.Workspace exists, but has no child named "NonExistent"`) {
			t.Errorf("query of a missing path: exit %d, stderr %q", code, errOut)
		}
		wantCode(t, call(t, b, id, "query", map[string]any{"path": "Workspace", "properties": []string{"NotAProperty"}}), protocol.CodePropertyNotFound)
		wantCode(t, call(t, b, id, "query", map[string]any{"path": "Workspace..X"}), protocol.CodeInvalidPayload)
		wantCode(t, call(t, b, id, "teleport", map[string]any{}), protocol.CodeUnknownAction)
	})

	t.Run("exec streams output in order", func(t *testing.T) {
		var r execReply
		res := mustCall(t, b, id, "exec", map[string]any{
			"script": "for i = 1, 5 do print(\"line \" .. i) task.wait(0.02) end\nwarn(\"careful\")\nreturn 42, workspace.SpawnLocation.Position",
		}, &r)
		want := []logLine{{"Print", "line 1"}, {"Print", "line 2"}, {"Print", "line 3"}, {"Print", "line 4"}, {"Print", "line 5"}, {"Warning", "careful"}}
		var streamed []logLine
		for _, p := range res.progress {
			var l logLine
			_ = json.Unmarshal(p, &l)
			streamed = append(streamed, l)
		}
		if !reflect.DeepEqual(streamed, want) || !reflect.DeepEqual(r.Logs, want) || !r.Success {
			t.Errorf("streamed %v\nlogs %v success %v", streamed, r.Logs, r.Success)
		}
		jsonEqual(t, "return values", mustJSON(r.ReturnValues), []any{42, map[string]any{"$type": "Vector3", "value": []any{0, 4, 0}}})
	})

	t.Run("exec errors are results", func(t *testing.T) {
		var r execReply
		mustCall(t, b, id, "exec", map[string]any{"script": "print(\"partial\")\nlocal t = nil\nreturn t.x"}, &r)
		if r.Success || r.Error != "Script:3: attempt to index nil with 'x'" || !reflect.DeepEqual(r.Logs, []logLine{{"Print", "partial"}}) {
			t.Errorf("runtime error: %+v", r)
		}
		mustCall(t, b, id, "exec", map[string]any{"script": "local = 1"}, &r)
		if r.Success || !strings.HasPrefix(r.Error, "Script:1:") {
			t.Errorf("compile error: %+v", r)
		}
	})

	t.Run("exec busy", func(t *testing.T) {
		done := make(chan callResult, 1)
		go func() { done <- call(t, b, id, "exec", map[string]any{"script": "task.wait(1) return 1"}) }()
		time.Sleep(300 * time.Millisecond)
		perr := wantCode(t, call(t, b, id, "exec", map[string]any{"script": "return 2"}), protocol.CodeBusy)
		if perr.Message != "Plugin is busy executing another script." {
			t.Errorf("busy message %q", perr.Message)
		}
		if r := <-done; r.err != nil {
			t.Errorf("first exec: %v", r.err)
		}
	})

	t.Run("logs with nothing to show say so on stderr", func(t *testing.T) {
		// nothing in this window has logged at Info level
		out, errOut, code := cli(t, port, "logs", "--levels", "Info", "--session", id)
		if code != 0 || out != "" || !strings.Contains(errOut, "No log lines match (studio-bridge's own lines are hidden; --include-internal shows them).") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		out, errOut, code = cli(t, port, "logs", "--levels", "Info", "--session", id, "--json")
		if code != 0 || errOut != "" || !strings.Contains(out, `"entries":[]`) {
			t.Errorf("--json: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})

	t.Run("logs keep order and follow live", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		events := b.Events(ctx, id)
		mustCall(t, b, id, "subscribe", map[string]any{"events": []string{"log"}}, nil)
		for i := 1; i <= 3; i++ {
			studio.Send(t, "print follow "+strconv.Itoa(i))
		}
		var seqs []int64
		var bodies []string
		for _, ev := range awaitLogEvents(t, events, 3, func(body string) bool { return strings.HasPrefix(body, "follow ") }) {
			var l logLine
			_ = json.Unmarshal(ev.Payload, &l)
			bodies = append(bodies, l.Body)
			seqs = append(seqs, ev.Seq)
		}
		if !reflect.DeepEqual(bodies, []string{"follow 1", "follow 2", "follow 3"}) || seqs[1] != seqs[0]+1 || seqs[2] != seqs[1]+1 {
			t.Errorf("followed %v seqs %v", bodies, seqs)
		}
		var logs logsReply
		mustCall(t, b, id, "logs", map[string]any{"count": 3}, &logs)
		var got []string
		for _, e := range logs.Entries {
			got = append(got, e.Body)
		}
		if !reflect.DeepEqual(got, []string{"follow 1", "follow 2", "follow 3"}) || logs.Entries[0].Seq != seqs[0] || logs.BufferCapacity < 2000 {
			t.Errorf("logs %+v", logs)
		}
		mustCall(t, b, id, "logs", map[string]any{"count": 100, "levels": []string{"Warning"}}, &logs)
		if len(logs.Entries) == 0 || logs.Entries[len(logs.Entries)-1].Body != "careful" {
			t.Errorf("warnings %+v", logs.Entries)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		checkScreenshot(t, mustCall(t, b, id, "screenshot", map[string]any{}, nil))
	})

	t.Run("screenshot PNG from the host", func(t *testing.T) {
		checkPNGScreenshot(t, port)
	})
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// TestRunMode: Run (F8) gives a window an edit DataModel and one server
// DataModel in run mode, no client. Both report state "Run"; a mutating
// command defaults to the server; and the window goes back to Edit on stop.
func TestRunMode(t *testing.T) {
	_, studio, b := startWindow(t, "--instance", "E2E-RUN")
	edit := waitSessions(t, b, "E2E-RUN", protocol.ContextEdit)[protocol.ContextEdit]

	studio.Send(t, "run")
	all := waitSessions(t, b, "E2E-RUN", protocol.ContextEdit, protocol.ContextServer)
	if all[protocol.ContextEdit].SessionID != edit.SessionID {
		t.Errorf("the edit session changed when Run started")
	}
	for _, s := range sessions(t, b) {
		if s.InstanceID == "E2E-RUN" && s.Context == protocol.ContextClient {
			t.Errorf("Run mode has a client session: %+v", s)
		}
	}
	for _, c := range []protocol.Context{protocol.ContextEdit, protocol.ContextServer} {
		kit.WaitFor(t, 10*time.Second, string(c)+" reporting Run", func() bool {
			var st stateReply
			mustCall(t, b, all[c].SessionID, "state", nil, &st)
			return st.State == "Run"
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got, err := b.Resolve(ctx, bridge.Target{DefaultContext: protocol.ContextServer}); err != nil || got.SessionID != all[protocol.ContextServer].SessionID {
		t.Errorf("resolve a mutating command in Run: %+v %v", got, err)
	}
	var r execReply
	mustCall(t, b, all[protocol.ContextServer].SessionID, "exec", map[string]any{
		"script": `local rs = game:GetService("RunService") return rs:IsRunMode(), rs:IsServer(), rs:IsClient(), rs:IsEdit()`}, &r)
	if want := []string{"true", "true", "true", "false"}; !r.Success || len(r.ReturnValues) != 4 ||
		string(r.ReturnValues[0]) != want[0] || string(r.ReturnValues[1]) != want[1] || string(r.ReturnValues[2]) != want[2] || string(r.ReturnValues[3]) != want[3] {
		t.Errorf("RunService in the Run DataModel: %+v", r)
	}

	studio.Send(t, "stop")
	kit.WaitFor(t, 10*time.Second, "the Run server session to end", func() bool {
		for _, s := range sessions(t, b) {
			if s.InstanceID == "E2E-RUN" && s.Context == protocol.ContextServer {
				return false
			}
		}
		return true
	})
	kit.WaitFor(t, 10*time.Second, "edit back in Edit", func() bool {
		var st stateReply
		mustCall(t, b, edit.SessionID, "state", nil, &st)
		return st.State == "Edit"
	})
}

func TestPlayWindowEveryContext(t *testing.T) {
	port, studio, b := startWindow(t, "--play", "--instance", "E2E-PLAY")
	all := waitSessions(t, b, "E2E-PLAY", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range protocol.Contexts {
		got, err := b.Resolve(ctx, bridge.Target{Context: c})
		if err != nil || got.SessionID != all[c].SessionID {
			t.Errorf("resolve %s: %v %v", c, got.SessionID, err)
		}
	}
	if got, err := b.Resolve(ctx, bridge.Target{DefaultContext: protocol.ContextServer}); err != nil || got.Context != protocol.ContextServer {
		t.Errorf("resolve a mutating command in Play: %+v %v", got, err)
	}

	// Output lines of every level, in every DataModel of the window.
	outputLines := []logLine{{"Print", "p2e one"}, {"Warning", "p2e two"}, {"Error", "p2e three"}, {"Info", "p2e four"}, {"Print", "p2e five"}}
	for _, l := range outputLines {
		studio.Send(t, map[string]string{"Print": "print", "Warning": "warn", "Error": "error", "Info": "info"}[l.Level]+" "+l.Body)
	}

	for _, c := range protocol.Contexts {
		c, id := c, all[c].SessionID
		t.Run(string(c), func(t *testing.T) {
			var st stateReply
			mustCall(t, b, id, "state", nil, &st)
			if st.State != "Play" {
				t.Errorf("state %+v", st)
			}

			// logs: in print order, with their levels and increasing seq
			linesWith := func(prefix string) ([]logLine, []int64) {
				var logs logsReply
				mustCall(t, b, id, "logs", map[string]any{"count": 500}, &logs)
				var got []logLine
				var seqs []int64
				for _, e := range logs.Entries {
					if strings.HasPrefix(e.Body, prefix) {
						got = append(got, logLine{e.Level, e.Body})
						seqs = append(seqs, e.Seq)
					}
				}
				return got, seqs
			}
			var got []logLine
			var seqs []int64
			kit.WaitFor(t, 10*time.Second, "the output lines in "+string(c), func() bool {
				got, seqs = linesWith("p2e ")
				return len(got) >= len(outputLines)
			})
			if !reflect.DeepEqual(got, outputLines) {
				t.Errorf("logs in %s:\n got  %v\n want %v", c, got, outputLines)
			}
			for i := 1; i < len(seqs); i++ {
				if seqs[i] <= seqs[i-1] {
					t.Errorf("logs in %s: seq %v not increasing", c, seqs)
				}
			}

			// exec: print and warn interleaved stream as progress, in order,
			// all before the result; the same lines reach logs in order
			tag := "x-" + string(c)
			res := mustCall(t, b, id, "exec", map[string]any{"script": fmt.Sprintf(
				"print(%[1]q .. \" 1\")\nwarn(%[1]q .. \" 2\")\ntask.wait(0.02)\nprint(%[1]q .. \" 3\")\nwarn(%[1]q .. \" 4\")\ntask.wait()\nwarn(%[1]q .. \" 5\", 5)\nprint(%[1]q .. \" 6\")\nreturn \"done\"", tag)}, nil)
			wantExec := []logLine{{"Print", tag + " 1"}, {"Warning", tag + " 2"}, {"Print", tag + " 3"}, {"Warning", tag + " 4"}, {"Warning", tag + " 5 5"}, {"Print", tag + " 6"}}
			var streamed []logLine
			for _, p := range res.progress { // collected before Call returned the result
				var l logLine
				if err := json.Unmarshal(p, &l); err != nil {
					t.Fatalf("progress %s: %v", p, err)
				}
				streamed = append(streamed, l)
			}
			var er execReply
			if err := json.Unmarshal(res.payload, &er); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(streamed, wantExec) || !reflect.DeepEqual(er.Logs, wantExec) || !er.Success || string(mustJSON(er.ReturnValues)) != `["done"]` {
				t.Errorf("exec in %s:\n streamed %v\n logs     %v\n result   %s", c, streamed, er.Logs, res.payload)
			}
			kit.WaitFor(t, 5*time.Second, "the exec's lines in logs of "+string(c), func() bool {
				got, _ = linesWith(tag + " ")
				return len(got) >= len(wantExec)
			})
			if !reflect.DeepEqual(got, wantExec) {
				t.Errorf("logs of the exec in %s:\n got  %v\n want %v", c, got, wantExec)
			}
			var r execReply
			mustCall(t, b, id, "exec", map[string]any{"script": "local rs = game:GetService(\"RunService\")\nprint(\"in\", rs:IsServer(), rs:IsClient())\nreturn rs:IsEdit()"}, &r)
			wantLine := map[protocol.Context]string{"edit": "in true true", "server": "in true false", "client": "in false true"}[c]
			if !r.Success || len(r.Logs) != 1 || r.Logs[0].Body != wantLine {
				t.Errorf("exec: %+v", r)
			}
			mustCall(t, b, id, "exec", map[string]any{"script": "local x = 1\nreturn x.y.z"}, &r)
			if r.Success || !strings.HasPrefix(r.Error, "Script:2: attempt to index") {
				t.Errorf("exec error: %+v", r)
			}
			var q struct{ Instance node }
			mustCall(t, b, id, "query", map[string]any{"path": "Workspace.SpawnLocation", "properties": []string{"Position"}}, &q)
			jsonEqual(t, "Position", q.Instance.Properties["Position"], fixture.node(t, "Workspace", "SpawnLocation").Properties["Position"])
			only := call(t, b, id, "query", map[string]any{"path": "ServerStorage.ServerOnly"})
			if (c == protocol.ContextServer) != (only.err == nil) {
				t.Errorf("ServerStorage.ServerOnly in %s: %s %v", c, only.payload, only.err)
			}
			shot := call(t, b, id, "screenshot", map[string]any{})
			if c == protocol.ContextServer {
				perr := wantCode(t, shot, protocol.CodeScreenshotFailed)
				if !strings.HasPrefix(perr.Message, "Screenshot capture failed: the server DataModel has no viewport") {
					t.Errorf("server screenshot message %q", perr.Message)
				}
				// through the CLI: a failure exit, the plugin's message, no file
				file := filepath.Join(t.TempDir(), "server.png")
				out, errOut, code := cli(t, port, "screenshot", "--context", "server", "-o", file)
				if code != 1 || !strings.Contains(errOut, "server DataModel has no viewport") {
					t.Errorf("screenshot --context server: exit %d\n%s\n%s", code, out, errOut)
				}
				if _, err := os.Stat(file); !os.IsNotExist(err) {
					t.Errorf("a failed screenshot left %s (%v)", file, err)
				}
			} else if c == protocol.ContextEdit {
				// while Play runs, the client DataModel renders, not the edit one
				perr := wantCode(t, shot, protocol.CodeScreenshotFailed)
				if !strings.Contains(perr.Message, "does not render while the game runs in Play") {
					t.Errorf("edit screenshot during Play: %q", perr.Message)
				}
			} else if shot.err != nil {
				t.Errorf("screenshot in %s: %v", c, shot.err)
			} else {
				checkScreenshot(t, shot)
				checkPNGScreenshot(t, port, "--context", string(c))
			}
		})
	}

	t.Run("pause pushes state events", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		watch := b.WatchSessions(ctx)
		studio.Send(t, "pause")
		seen := map[protocol.Context]bool{}
		timeout := time.After(15 * time.Second)
		for !(seen[protocol.ContextServer] && seen[protocol.ContextEdit]) {
			select {
			case ev := <-watch:
				if ev.Session.InstanceID == "E2E-PLAY" && ev.Session.State == protocol.StatePaused {
					seen[ev.Session.Context] = true
				}
			case <-timeout:
				t.Fatalf("no Paused state events, saw %v", seen)
			}
		}
		studio.Send(t, "resume")
	})
}

func TestHostKilledPluginsReconnectKeepingSessions(t *testing.T) {
	requireSetup(t)
	port := kit.FreePort(t)
	host := startServe(t, "serve-host", port)
	standby := startProc(t, "serve-standby", kit.Binary(t), "serve", "--port", strconv.Itoa(port))
	kit.WaitFor(t, 10*time.Second, "the standby to join", func() bool {
		return strings.Contains(standby.Stdout.String(), "standing by")
	})
	kit.Studio(t, "studio", port, "--play", "--instance", "E2E-FAILOVER")
	b := connect(t, port)
	before := waitSessions(t, b, "E2E-FAILOVER", protocol.ContextEdit, protocol.ContextServer, protocol.ContextClient)

	killed := host.Kill(t)

	var served time.Duration
	kit.WaitFor(t, 20*time.Second, "all three sessions back with their ids", func() bool {
		after := map[protocol.Context]string{}
		for _, s := range sessions(t, b) {
			if s.InstanceID == "E2E-FAILOVER" {
				after[s.Context] = s.SessionID
			}
		}
		for c, s := range before {
			if after[c] != s.SessionID {
				return false
			}
		}
		// the list may still be the dead host's for a moment: the sessions
		// are back once the new host answers a call to each
		for _, s := range before {
			if r := call(t, b, s.SessionID, "state", nil); r.err != nil {
				return false
			}
		}
		served = time.Since(killed)
		return true
	})
	// The 2 s figure is a speed target, logged here, not asserted: on a
	// loaded machine it says nothing about the product. What makes it
	// hold is the plugin's schedule after a loss (0.25, 0.5, 1 s:
	// plugin/tests/Backoff.spec.luau) and the new host keeping the
	// sessions (their ids, checked above); BenchmarkFailover (test/bench)
	// measures the failover. The 20 s WaitFor catches a failover that
	// never ends.
	t.Logf("plugins re-registered with the new host %s after kill -9", served.Round(time.Millisecond))
	for c, s := range before {
		var st stateReply
		mustCall(t, b, s.SessionID, "state", nil, &st)
		if st.State != "Play" {
			t.Errorf("%s after failover: %+v", c, st)
		}
	}
	var r execReply
	mustCall(t, b, before[protocol.ContextServer].SessionID, "exec", map[string]any{"script": "return 1 + 1"}, &r)
	if !r.Success || string(r.ReturnValues[0]) != "2" {
		t.Errorf("exec after failover: %+v", r)
	}
}

func TestDropMidRequestAndRecover(t *testing.T) {
	_, _, b := startWindow(t, "--instance", "E2E-DROP", "--fault", "drop:exec")
	before := waitSessions(t, b, "E2E-DROP", protocol.ContextEdit)[protocol.ContextEdit]

	// The socket drops while the exec runs (PROTOCOL.md 12.7): the plugin
	// keeps running it, comes back within the grace and delivers the result;
	// the caller never sees the drop.
	r := call(t, b, before.SessionID, "exec", map[string]any{"script": "task.wait(2) return 1"})
	var e execReply
	if r.err != nil || json.Unmarshal(r.payload, &e) != nil || !e.Success || string(e.ReturnValues[0]) != "1" {
		t.Fatalf("exec across the drop: payload %s err %v", r.payload, r.err)
	}

	after := waitSessions(t, b, "E2E-DROP", protocol.ContextEdit)[protocol.ContextEdit]
	if after.SessionID != before.SessionID {
		t.Fatalf("session id changed across the drop: %s -> %s", before.SessionID, after.SessionID)
	}
	mustCall(t, b, after.SessionID, "exec", map[string]any{"script": "return 3"}, &e)
	if string(e.ReturnValues[0]) != "3" {
		t.Errorf("exec after the drop: %+v", e)
	}
}

// TestHugePrintIsTruncated: one print far above the 1 MiB plugin frame limit
// must not close the session: the plugin cuts the line to 64 KiB (at a UTF-8
// boundary) in exec progress, the exec result, the log buffer and live log
// events, flagging it truncated with its original length.
func TestHugePrintIsTruncated(t *testing.T) {
	_, _, b, s := editWindow(t, "E2E-HUGE")
	id := s.SessionID

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := b.Events(ctx, id)
	mustCall(t, b, id, "subscribe", map[string]any{"events": []string{"log"}}, nil)

	// "x" then 1 Mi two-byte characters: 2 MiB + 1 byte; byte 65536 starts a
	// character, so the cut keeps 65535 bytes.
	const original = 1 + 2*1024*1024
	const kept = 64*1024 - 1
	type line struct {
		Level     string `json:"level"`
		Body      string `json:"body"`
		Truncated bool   `json:"truncated"`
		Bytes     int    `json:"bytes"`
	}
	checkHuge := func(what string, l line) {
		t.Helper()
		if l.Level != "Print" || !l.Truncated || l.Bytes != original || len(l.Body) != kept ||
			!utf8.ValidString(l.Body) || !strings.HasPrefix(l.Body, "xéé") {
			t.Errorf("%s: level %s truncated %v bytes %d body %d bytes (valid UTF-8 %v)", what, l.Level, l.Truncated, l.Bytes, len(l.Body), utf8.ValidString(l.Body))
		}
	}
	checkAfter := func(what string, l line) {
		t.Helper()
		if l != (line{Level: "Print", Body: "after"}) {
			t.Errorf("%s: %+v, want the whole line \"after\" without truncated/bytes", what, l)
		}
	}

	res := mustCall(t, b, id, "exec", map[string]any{"script": `print("x" .. string.rep("é", 1024 * 1024)) print("after") return 1`}, nil)
	var r struct {
		Success bool   `json:"success"`
		Logs    []line `json:"logs"`
	}
	if err := json.Unmarshal(res.payload, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Success || len(r.Logs) != 2 {
		t.Fatalf("exec: success %v, %d log lines", r.Success, len(r.Logs))
	}
	checkHuge("exec logs[0]", r.Logs[0])
	checkAfter("exec logs[1]", r.Logs[1])
	if len(res.progress) != 2 {
		t.Fatalf("%d progress frames, want 2", len(res.progress))
	}
	var p0, p1 line
	_ = json.Unmarshal(res.progress[0], &p0)
	_ = json.Unmarshal(res.progress[1], &p1)
	checkHuge("progress[0]", p0)
	checkAfter("progress[1]", p1)

	// live log events
	var live []line
	for _, ev := range awaitLogEvents(t, events, 2, func(body string) bool { return strings.HasPrefix(body, "xé") || body == "after" }) {
		var l line
		_ = json.Unmarshal(ev.Payload, &l)
		live = append(live, l)
	}
	checkHuge("log event", live[0])
	checkAfter("log event", live[1])

	// the log buffer
	var logs struct {
		Entries []line `json:"entries"`
	}
	mustCall(t, b, id, "logs", map[string]any{"count": 2}, &logs)
	if len(logs.Entries) != 2 {
		t.Fatalf("logs: %d entries", len(logs.Entries))
	}
	checkHuge("logs[0]", logs.Entries[0])
	checkAfter("logs[1]", logs.Entries[1])

	// the session is still the same, connected one
	again := waitSessions(t, b, "E2E-HUGE", protocol.ContextEdit)[protocol.ContextEdit]
	if again.SessionID != id {
		t.Errorf("session changed: %s -> %s", id, again.SessionID)
	}
	var after execReply
	mustCall(t, b, id, "exec", map[string]any{"script": "return 2"}, &after)
	if !after.Success || string(after.ReturnValues[0]) != "2" {
		t.Errorf("exec after the huge print: %+v", after)
	}
}
