package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// TestMain runs the tests in a config directory of their own, under goleak.
func TestMain(m *testing.M) { kit.MainInConfigDir(m) }

func setup(t *testing.T) (*Env, *bytes.Buffer, *[]Line) {
	t.Helper()
	port := kit.FreePort(t)
	b := bridgekit.Connect(t, bridge.Options{Port: port, Grace: 300 * time.Millisecond})
	t.Cleanup(b.Kill)
	kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", Handler: fakeplugin.Studio})
	s, err := b.Resolve(context.Background(), bridge.Target{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var mu sync.Mutex
	lines := &[]Line{}
	env := &Env{Bridge: b, Session: s, Stdout: &out, Stderr: &out, Output: func(l Line) {
		mu.Lock()
		*lines = append(*lines, l)
		mu.Unlock()
	}}
	return env, &out, lines
}

func run(t *testing.T, env *Env, d *Definition, args any) (*Result, error) {
	t.Helper()
	env.Command = d
	env.Timeout = d.Timeout
	if args == nil {
		args = d.NewArgs()
	}
	return d.run(context.Background(), env, args)
}

func TestActionCommands(t *testing.T) {
	t.Parallel()
	env, _, lines := setup(t)

	res, err := run(t, env, State, nil)
	if err != nil || res.Data.(StateData).PlaceID != 7 || !strings.Contains(res.Text, "Place (placeId 7)") {
		t.Fatalf("state: %+v %v", res, err)
	}

	logsArgs := Logs.NewArgs().(*LogsArgs)
	if logsArgs.Count != 50 || logsArgs.Direction != "tail" {
		t.Fatalf("logs defaults: %+v", logsArgs)
	}
	res, err = run(t, env, Logs, logsArgs)
	if err != nil || res.Data.(LogsData).BufferCapacity != 2000 || res.Text != "hello\n[Warning] careful\n" {
		t.Fatalf("logs: %+v %v", res, err)
	}

	res, err = run(t, env, Query, &QueryArgs{Path: "Workspace.SpawnLocation"})
	if err != nil || !strings.Contains(res.Text, "Position = Vector3(0, 4, 0)") || !strings.Contains(res.Text, "Anchored = true") {
		t.Fatalf("query: %+v %v", res, err)
	}
	if _, err := run(t, env, Query, &QueryArgs{}); err == nil {
		t.Fatal("query without a path must fail")
	}

	res, err = run(t, env, Exec, &ExecArgs{Script: "print('one')"})
	if err != nil || res.Failure != "" || res.Text != "42\nVector3(1, 2, 3)\n" {
		t.Fatalf("exec: %+v %v", res, err)
	}
	if len(*lines) != 2 || (*lines)[0].Body != "one" || (*lines)[1].Level != "Warning" {
		t.Fatalf("streamed lines: %+v", *lines)
	}
	res, err = run(t, env, Exec, &ExecArgs{Script: "flood()"})
	if err != nil || res.Data.(ExecData).DroppedLogs != 12345 || !strings.Contains(res.Note, "12345 more output lines were not captured") {
		t.Fatalf("exec past the output cap must say how many lines were dropped: %+v %v", res, err)
	}

	res, err = run(t, env, Exec, &ExecArgs{Script: "error('boom')"})
	if err != nil || res.Failure != "script error: Script:2: boom" || res.Data.(ExecData).Success {
		t.Fatalf("failing exec must be a result: %+v %v", res, err)
	}

	dir := t.TempDir()
	out := filepath.Join(dir, "shot.png")
	res, err = run(t, env, Screenshot, &ScreenshotArgs{Output: out})
	if err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(out)
	img, err := png.Decode(bytes.NewReader(file))
	if err != nil || img.Bounds().Dx() != 2 || !bytes.Equal(file, res.Image) {
		t.Fatalf("screenshot: %v", err)
	}
	if r, g, b, _ := img.At(0, 0).RGBA(); r != 0xffff || g != 0 || b != 0 {
		t.Fatalf("pixel (0,0) = %d %d %d, want red", r, g, b)
	}
}

func TestTimeoutMessage(t *testing.T) {
	t.Parallel()
	env, _, _ := setup(t)
	env.Command = Exec
	env.Timeout = 100 * time.Millisecond
	_, err := Exec.run(context.Background(), env, &ExecArgs{Script: "wait()"})
	if protocol.CodeOf(err) != protocol.CodeTimeout || err.Error() != "Script execution timed out after 100ms." {
		t.Fatalf("got %v", err)
	}
	if got := humanDuration(5 * time.Second); got != "5 seconds" {
		t.Fatalf("humanDuration: %q", got)
	}
}

func TestFormatValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"$type":"Vector3","value":[1,2,3]}`:   "Vector3(1, 2, 3)",
		`null`:                                  "nil",
		`{"$type":"NumberRange","value":[1,2]}`: "NumberRange(1, 2)",
		`{"$type":"NumberSequence","value":[[0,0.5,0],[0.5,1,0.25],[1,0,0]]}`: "NumberSequence(0: 0.5, 0.5: 1±0.25, 1: 0)",
		`{"$type":"ColorSequence","value":[[0,1,0.5,0],[1,1,0,0]]}`:           "ColorSequence(0: (1, 0.5, 0), 1: (1, 0, 0))",
		`{"$type":"Rect","value":[8,8,24,24]}`:                                "Rect(8, 8, 24, 24)",
		`{"$type":"Vector3int16","value":[1,-2,3]}`:                           "Vector3int16(1, -2, 3)",
		`{"$type":"Vector2int16","value":[7,8]}`:                              "Vector2int16(7, 8)",
		`{"$type":"PhysicalProperties","value":{"density":0.7,"elasticity":0.5,"elasticityWeight":1,"friction":0.3,"frictionWeight":1}}`:            "PhysicalProperties(density 0.7, friction 0.3, elasticity 0.5, frictionWeight 1, elasticityWeight 1)",
		`{"$type":"Font","family":"rbxasset://fonts/families/SourceSansPro.json","weight":"Bold","style":"Normal"}`:                                 "Font(SourceSansPro, Bold, Normal)",
		`{"$type":"Font","family":"rbxassetid://12187365364","weight":"Regular","style":"Italic"}`:                                                  "Font(rbxassetid://12187365364, Regular, Italic)",
		`{"$type":"Ray","value":{"origin":[0,5,0],"direction":[0,-10,0]}}`:                                                                          "Ray(origin (0, 5, 0), direction (0, -10, 0))",
		`{"$type":"Region3","value":{"cframe":[2,1,3,1,0,0,0,1,0,0,0,1],"size":[4,2,6]}}`:                                                           "Region3(center (2, 1, 3), size (4, 2, 6))",
		`{"$type":"Faces","value":["Top","Front"]}`:                                                                                                 "Faces(Top, Front)",
		`{"$type":"Axes","value":["X","Z"]}`:                                                                                                        "Axes(X, Z)",
		`{"$type":"DateTime","value":"2024-01-01T00:00:00Z","unixMillis":1704067200000}`:                                                            "DateTime(2024-01-01T00:00:00Z)",
		`{"$type":"Content","sourceType":"Uri","uri":"rbxassetid://1"}`:                                                                             "Content(rbxassetid://1)",
		`{"$type":"Content","sourceType":"None"}`:                                                                                                   "Content(None)",
		`{"$type":"Content","sourceType":"Object","object":{"$type":"Instance","className":"EditableImage","path":"EditableImage"}}`:                "Content(EditableImage (EditableImage))",
		`{"$type":"TweenInfo","value":{"time":0.5,"easingStyle":"Linear","easingDirection":"InOut","repeatCount":2,"reverses":true,"delayTime":0}}`: "TweenInfo(0.5s, Linear, InOut, repeat 2, reverses true, delay 0s)",
		`{"$type":"EnumItem","enum":"Material","name":"Plastic"}`:                                                                                   "Enum.Material.Plastic",
		`{"$type":"Instance","className":"Part","path":"game.Workspace"}`:                                                                           "game.Workspace (Part)",
		`{"$type":"Unsupported","typeName":"Ray"}`:                                                                                                  "<Ray>",
		`"text"`: `"text"`, `3.5`: "3.5", `true`: "true",
	} {
		var v any
		_ = json.Unmarshal([]byte(in), &v)
		if got := FormatValue(v); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}
