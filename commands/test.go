package commands

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// runnerSource is the Luau runner (testrunner.luau) sent as one exec.
//
//go:embed testrunner.luau
var runnerSource string

// TestArgs are the test command's arguments.
type TestArgs struct {
	Paths      []string `json:"paths" pos:"true" usage:"spec files or folders to search for *.spec.luau / *.spec.lua (default: the current folder)" desc:"Spec files or folders on the machine running studio-bridge, searched for *.spec.luau and *.spec.lua (default: its current folder). Leave empty with root."`
	Root       string   `json:"root" usage:"run the specs already in the place under this instance (e.g. ReplicatedStorage.Tests) instead of files" desc:"Run the TestEZ specs already in the place under this instance path (e.g. ReplicatedStorage.Tests), for example synced by Rojo, instead of files."`
	TestEZPath string   `json:"testezPath" flag:"testez-path" usage:"TestEZ's ModuleScript in the place (default: ReplicatedStorage.DevPackages.TestEZ, the Wally _Index, …)" desc:"Instance path of TestEZ's ModuleScript in the place. Default: the usual Wally locations (ReplicatedStorage.DevPackages.TestEZ, the _Index)."`
	Runner     string   `json:"runner" enum:"testez,jest" default:"testez" usage:"the test framework in the place: testez, or jest (Jest-Lua)" desc:"The test framework the place holds: 'testez' (the default) or 'jest' (Jest-Lua, run with its runCLI)."`
	JestPath   string   `json:"jestPath" flag:"jest-path" usage:"with --runner jest: Jest-Lua's Jest ModuleScript in the place (default: ReplicatedStorage.DevPackages.Jest, …)" desc:"With runner 'jest': instance path of Jest-Lua's Jest ModuleScript in the place. Default: the usual locations (ReplicatedStorage.DevPackages.Jest, Packages.Jest, roblox-ts's rbxts_include.node_modules.@rbxts-js.Jest)."`
	Reporter   string   `json:"reporter" enum:"text,github" default:"text" mcp:"-" usage:"how failures are reported: text, or github (::error workflow commands for GitHub Actions)"`
	JUnit      string   `json:"junit" flag:"junit" mcp:"-" usage:"also write a JUnit XML report to this FILE"`
	// Cloud runs through Open Cloud Luau Execution (test_cloud.go), in
	// the place CloudPlace names.
	Cloud bool `json:"cloud" mcp:"-" usage:"run in Roblox Open Cloud (Luau Execution) against a place version holding TestEZ and the specs; needs --root and ROBLOX_API_KEY"`
	CloudPlace
	CloudTest
	Playtest
	// synced is the spec file Rojo syncs, when one is named alone and the
	// source map maps it (set by testScript; locations.go).
	synced *syncedSpec
}

// Test runs TestEZ (or Jest-Lua) specs in a session, a playtest or Open
// Cloud and reports them.
var Test = Define(Spec[TestArgs, TestData]{
	Definition: Definition{
		Name:           "test",
		Title:          "Run tests in Studio",
		Summary:        "Run TestEZ (or Jest-Lua) specs (*.spec.luau) in Studio, a playtest or Open Cloud and report the results (text, JSON, GitHub, JUnit).",
		Description:    "Run TestEZ (or, with runner 'jest', Jest-Lua) unit tests in a Roblox Studio session, or in a playtest with play/run: spec files from disk (mounted temporarily, keeping their folder structure) or, with root, specs already in the place. The framework must be in the place (a Wally dev-dependency). Returns passed/failed/skipped counts and every test with its status, file, line and failure message.",
		NeedsSession:   true,
		DefaultContext: protocol.ContextServer,
		Mutates:        true,
		LargeOutput:    true, // MCP cuts failure messages to maxOutputBytes (TestData.Fit)
		MCP:            true,
		Timeout:        300 * time.Second,
		MaxTimeout:     time.Hour,
		Noun:           "Test run",
	},
	Standalone: func(args *TestArgs) bool { return args.Cloud || args.cloudFlag() != "" || len(args.Merge) > 0 },
	Retarget: func(args *TestArgs, t bridge.Target) (bridge.Target, error) {
		return retargetTest(args.playChoice(), t)
	},
	Run: runTest,
})

func (a *TestArgs) playChoice() playChoice { return a.choice("test") }

// testPayload is the exec request: History false asks the plugin to leave
// no undo step for the temporary folder (ignored by plugins that predate it).
type testPayload struct {
	Script    string `json:"script"`
	ChunkName string `json:"chunkName"`
	History   bool   `json:"history"`
}

// runnerAnswer is what the runner returns (one JSON string).
type runnerAnswer struct {
	Error      string            `json:"error"`
	Searched   []string          `json:"searched"`
	Tests      []TestCase        `json:"tests"`
	DurationMs int64             `json:"durationMs"`
	Names      map[string]string `json:"names"`
	// File and Bytes name the file Studio refused as a Source
	// (source-too-large).
	File  string `json:"file"`
	Bytes int    `json:"bytes"`
}

// wallyLine is what adds TestEZ to a Wally project; jestWallyLines add
// Jest-Lua (its runner and the globals specs require).
const (
	wallyLine      = `TestEZ = "roblox/testez@0.4.1"`
	jestWallyLines = "Jest = \"jsdotlua/jest@3.10.0\"\n    JestGlobals = \"jsdotlua/jest-globals@3.10.0\""
)

func runTest(ctx context.Context, env *Env, args *TestArgs) (*Result, error) {
	if err := checkTestArgs(args); err != nil {
		return nil, err
	}
	if len(args.Merge) > 0 {
		return runTestMerge(env, args)
	}
	script, names, err := testScript(args, env.specScope())
	if err != nil {
		return nil, err
	}
	if args.Cloud {
		return runTestCloud(ctx, env, args, script)
	}
	if args.Play || args.Run {
		return inTest(ctx, env, args.playChoice(), func(env *Env) (*Result, error) {
			return runTestIn(ctx, env, args, script, names)
		})
	}
	return runTestIn(ctx, env, args, script, names)
}

// runTestIn runs the runner script in env.Session and reports its answer.
func runTestIn(ctx context.Context, env *Env, args *TestArgs, script string, names map[string]string) (*Result, error) {
	if len(script) > protocol.MaxRequestPayloadBytes-4096 {
		return nil, UsageError{fmt.Errorf("test: the specs and their helpers make a %d-byte script; a Studio plugin takes at most %d (PROTOCOL.md 12.13): name fewer folders", len(script), protocol.MaxRequestPayloadBytes-4096)}
	}
	var data ExecData
	started := time.Now()
	err := action(ctx, env, "exec", testPayload{Script: script, ChunkName: "StudioBridgeTest", History: false}, &data, func(p json.RawMessage) {
		var l Line
		if json.Unmarshal(p, &l) == nil && env.Stderr != nil {
			// the specs' own output: on stderr, so stdout keeps the
			// report; naming files, not the mounted instances
			l.Body = renameInstances(l.Body, names)
			fmt.Fprint(env.Stderr, RenderLine(l))
		}
	})
	if err != nil {
		if protocol.CodeOf(err) == protocol.CodePayloadTooLarge {
			// the run's size is the user's to change: a usage error
			return nil, UsageError{fmt.Errorf("test: the specs and their helpers make a %d-byte script, too large for this plugin (name fewer folders): %w", len(script), err)}
		}
		return nil, err
	}
	if !data.Success {
		return nil, fmt.Errorf("test: the runner failed in Studio: %s", data.Error)
	}
	return testResult(env, args, data.ReturnValues, time.Since(started))
}

func checkTestArgs(args *TestArgs) error {
	if err := checkCloudTestArgs(args); err != nil || len(args.Merge) > 0 {
		return err
	}
	if args.Root != "" && len(args.Paths) > 0 {
		return Usagef("test: give spec paths or %s, not both: %s runs the specs already in the place", ArgName("root"), ArgName("root"))
	}
	if !args.Cloud && args.cloudFlag() != "" {
		return UsageError{fmt.Errorf("test: %s only applies with --cloud", args.cloudFlag())}
	}
	if args.Cloud && (args.Play || args.Run) {
		return UsageError{errors.New("test: --play and --run need Studio; they do not combine with --cloud")}
	}
	if args.Cloud && args.Root == "" {
		return UsageError{errors.New("test --cloud: give --root (the specs in the place version, e.g. built with Rojo and passed with --place-file); spec files from disk are not supported in the cloud, see docs/testing.md")}
	}
	if args.Runner == "jest" && args.TestEZPath != "" {
		return Usagef("test: %s is for TestEZ; with %s jest name Jest's ModuleScript with %s", ArgName("testezPath"), ArgName("runner"), ArgName("jestPath"))
	}
	if args.Runner != "jest" && args.JestPath != "" {
		return Usagef("test: %s only applies with %s jest", ArgName("jestPath"), ArgName("runner"))
	}
	for _, p := range []struct {
		arg ArgName
		v   string
	}{{"root", args.Root}, {"testezPath", args.TestEZPath}, {"jestPath", args.JestPath}} {
		if p.v != "" && (len(p.v) > 1000 || strings.ContainsAny(p.v, "\x00\n\r") || strings.Trim(p.v, ".") == "") {
			return Usagef("test: %s %q is not an instance path (e.g. ReplicatedStorage.Tests)", p.arg, p.v)
		}
	}
	return nil
}

// testScript is the exec script: one CONFIG line, then the runner. names
// maps the instances it will mount (under either container) to their
// files, for the output lines streamed while it runs.
func testScript(args *TestArgs, scope specScope) (script string, names map[string]string, err error) {
	var b strings.Builder
	b.WriteString("local CONFIG = {runId=")
	var id [6]byte
	_, _ = rand.Read(id[:])
	runID := hex.EncodeToString(id[:])
	luauString(&b, runID)
	if s := findSyncedSpec(SourceMap(), args); s != nil {
		args.synced = s
		b.WriteString(",root=")
		luauString(&b, s.Parent)
		b.WriteString(",synced=")
		luauString(&b, s.Path)
		b.WriteString(",expectSource=")
		luauString(&b, s.Source)
	} else if args.Root != "" {
		b.WriteString(",root=")
		luauString(&b, args.Root)
	} else {
		nodes, specs, _, err := specTree(scope, args.Paths)
		if err != nil {
			return "", nil, UsageError{fmt.Errorf("test: %w", err)}
		}
		names = map[string]string{}
		for _, container := range []string{"ServerStorage", "ReplicatedStorage"} {
			for _, n := range nodes {
				n.names(container+"."+mountPrefix+runID, names)
			}
		}
		if specs == 0 {
			var where any = CurrentFolder("")
			if len(args.Paths) > 0 {
				where = strings.Join(args.Paths, ", ")
			} else if wd, err := os.Getwd(); err == nil {
				where = CurrentFolder(wd)
			}
			return "", nil, UsageError{fmt.Errorf("test: %w in %w (files named *.spec.luau or *.spec.lua)", errNoSpecs, Wordf("%s", where))}
		}
		b.WriteString(",tree={")
		for i, n := range nodes {
			if i > 0 {
				b.WriteByte(',')
			}
			n.luau(&b)
		}
		b.WriteString("}")
	}
	if args.TestEZPath != "" {
		b.WriteString(",testezPath=")
		luauString(&b, args.TestEZPath)
	}
	if args.Runner == "jest" {
		b.WriteString(",runner=\"jest\"")
		if args.JestPath != "" {
			b.WriteString(",jestPath=")
			luauString(&b, args.JestPath)
		}
	}
	b.WriteString("}\n")
	b.WriteString(runnerSource)
	return b.String(), names, nil
}

// mountPrefix starts the temporary folder's name (testrunner.luau).
const mountPrefix = "StudioBridgeTest_"

// testResult decodes the runner's answer into the report.
func testResult(env *Env, args *TestArgs, values []json.RawMessage, took time.Duration) (*Result, error) {
	var text string
	if len(values) != 1 || json.Unmarshal(values[0], &text) != nil {
		return nil, &protocol.Error{Code: protocol.CodeInvalidPayload, Message: "test: the runner answered an unexpected shape"}
	}
	var ans runnerAnswer
	if err := json.Unmarshal([]byte(text), &ans); err != nil {
		return nil, &protocol.Error{Code: protocol.CodeInvalidPayload, Message: fmt.Sprintf("test: the runner's answer is not JSON: %v", err)}
	}
	switch ans.Error {
	case "":
	case "testez-missing":
		return nil, Usagef("test: TestEZ is not in the place (looked at %s); add it as a Wally dev-dependency in wally.toml:\n\n    [dev-dependencies]\n    %s\n\nthen `wally install` and sync DevPackages into ReplicatedStorage, or name its ModuleScript with %s", strings.Join(ans.Searched, ", "), wallyLine, ArgName("testezPath"))
	case "jest-missing":
		return nil, Usagef("test: Jest-Lua is not in the place (looked at %s); add it as Wally dev-dependencies in wally.toml:\n\n    [dev-dependencies]\n    %s\n\nthen `wally install` and sync DevPackages into ReplicatedStorage, or name its Jest ModuleScript with %s", strings.Join(ans.Searched, ", "), jestWallyLines, ArgName("jestPath"))
	case "jest-no-loadstring":
		return nil, Usagef("test: Jest-Lua loads specs with loadstring (or debug.loadmodule, a Studio feature flag), and this DataModel allows neither: in a playtest's server, turn on ServerScriptService.LoadStringEnabled in the place, or run the specs in Edit (without %s/%s)", ArgName("play"), ArgName("run"))
	case "root-missing":
		return nil, rootMissing(SourceMap(), args)
	case "root-uncloneable":
		return nil, Wordf("test: %s %s cannot be cloned (Archivable is false?)", ArgName("root"), args.Root)
	case "source-too-large":
		return nil, Usagef("test: %s is %d bytes, over Studio's 200,000-character limit for a script's Source, so it cannot be mounted; split it, or sync it with Rojo and run it with %s", ans.File, ans.Bytes, ArgName("root"))
	case "jest-filter":
		return nil, Wordf("test: Jest-Lua named its test files otherwise than by their instances, so the specs asked for could not be picked out of their folder; run the whole folder, or the specs' folder with %s", ArgName("root"))
	case "only-missing":
		return nil, rootMissing(SourceMap(), args)
	case "out-of-sync":
		return nil, Usagef("test: %s is out of sync: Studio's copy (%s) differs from the file; let Rojo sync it (rojo serve) and run again", args.synced.File, args.synced.Path)
	case "no-specs":
		where := "the spec paths"
		if args.Root != "" {
			where = args.Root
		}
		return nil, UsageError{fmt.Errorf("test: %w under %s (ModuleScripts named *.spec)", errNoSpecs, where)}
	default:
		return nil, fmt.Errorf("test: the runner failed: %s", ans.Error)
	}
	data := TestData{Tests: ans.Tests, DurationMs: ans.DurationMs}
	if data.DurationMs == 0 {
		data.DurationMs = took.Milliseconds()
	}
	if data.Tests == nil {
		data.Tests = []TestCase{}
	}
	// messages name the mounted instances; people know the files
	for i := range data.Tests {
		data.Tests[i].Message = dropFrames(renameInstances(data.Tests[i].Message, ans.Names))
		data.Tests[i] = locateTestCase(SourceMap(), data.Tests[i])
	}
	data.count()
	res := &Result{Data: data}
	switch args.Reporter {
	case "github":
		res.Render = func() string { return data.GitHub() }
	default:
		res.Render = func() string { return data.Summary() }
	}
	if args.JUnit != "" {
		if err := os.WriteFile(args.JUnit, data.JUnit(), 0o644); err != nil {
			return nil, fmt.Errorf("test: write the JUnit report: %w", err)
		}
	}
	if data.Failed > 0 {
		res.Failure = data.FailureLine()
	}
	return res, nil
}

// frameLine is one line of a Luau traceback: "Chunk.Name:12" or
// "Chunk.Name:12 function f".
var frameLine = regexp.MustCompile(`^\S+:\d+( function \S+)?$`)

// dropFrames removes TestEZ's traceback lines from a failure message (the
// first line holds the file, line and message); what a test wrote on
// several lines stays.
func dropFrames(msg string) string {
	lines := strings.Split(msg, "\n")
	out := lines[:1]
	for _, l := range lines[1:] {
		if !frameLine.MatchString(strings.TrimSpace(l)) && strings.TrimSpace(l) != "stack traceback:" {
			out = append(out, l)
		}
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// renameInstances replaces mounted instances' full names by their files,
// longest first (a folder's name is a prefix of its children's).
func renameInstances(msg string, names map[string]string) string {
	if msg == "" || len(names) == 0 {
		return msg
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sortLongestFirst(keys)
	for _, k := range keys {
		msg = strings.ReplaceAll(msg, k+":", names[k]+":")
	}
	return msg
}
