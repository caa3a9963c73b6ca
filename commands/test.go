package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands/testrun"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// The test command: its arguments, its definition and its wording. The
// runner itself (spec discovery, the Luau runner and its script, the
// answer, the reports, sharding, timings and merging) is commands/testrun;
// test --cloud's Open Cloud runs are test_cloud.go.

// The report types are the runner's (testrun); these names keep the
// command's result types beside its definition.
type (
	TestCase        = testrun.TestCase
	TestData        = testrun.TestData
	ShardedTestData = testrun.ShardedTestData
	ShardReport     = testrun.ShardReport
)

// TestArgs are the test command's arguments.
type TestArgs struct {
	Paths      []string `json:"paths" pos:"true" usage:"spec files or folders to search for *.spec.luau / *.spec.lua (default: the current folder)" desc:"Spec files or folders on the machine running studio-bridge, searched for *.spec.luau and *.spec.lua (default: its current folder). Leave empty with root."`
	Root       string   `json:"root" usage:"run the specs already in the place under this instance (e.g. ReplicatedStorage.Tests) instead of files" desc:"Run the TestEZ specs already in the place under this instance path (e.g. ReplicatedStorage.Tests), for example synced by Rojo, instead of files."`
	TestEZPath string   `json:"testezPath" flag:"testez-path" usage:"TestEZ's ModuleScript in the place (default: ReplicatedStorage.DevPackages.TestEZ, the Wally _Index, …)" desc:"Instance path of TestEZ's ModuleScript in the place. Default: the usual Wally locations (ReplicatedStorage.DevPackages.TestEZ, the _Index)."`
	Runner     string   `json:"runner" enum:"testez,jest" default:"testez" usage:"the test framework in the place: testez, or jest (Jest-Lua)" desc:"The test framework the place holds: 'testez' (the default) or 'jest' (Jest-Lua, run with its runCLI)."`
	JestPath   string   `json:"jestPath" flag:"jest-path" usage:"with --runner jest: Jest-Lua's Jest ModuleScript in the place (default: ReplicatedStorage.DevPackages.Jest, …)" desc:"With runner 'jest': instance path of Jest-Lua's Jest ModuleScript in the place. Default: the usual locations (ReplicatedStorage.DevPackages.Jest, Packages.Jest, roblox-ts's rbxts_include.node_modules.@rbxts-js.Jest)."`
	Reporter   string   `json:"reporter" enum:"text,github" default:"text" mcp:"-" usage:"how failures are reported: text, or github (::error workflow commands for GitHub Actions)"`
	JUnit      string   `json:"junit" flag:"junit" mcp:"-" usage:"also write a JUnit XML report to this FILE"`
	// ChangedSince runs only the specs a git change concerns
	// (test_changed.go).
	ChangedSince string `json:"changedSince" flag:"changed-since" mcp:"-" usage:"run only the specs whose files, or files they require (followed through the source map), changed since git REF (git diff REF... and uncommitted changes); says how many it skipped"`
	// Cloud runs through Open Cloud Luau Execution (test_cloud.go), in
	// the place CloudPlace names.
	Cloud bool `json:"cloud" mcp:"-" usage:"run in Roblox Open Cloud (Luau Execution) against a place version holding TestEZ and the specs; needs --root and ROBLOX_API_KEY"`
	CloudPlace
	CloudTest
	Playtest
	// synced is the spec file Rojo syncs, when one is named alone and the
	// source map maps it (set by testScript; locations.go).
	synced *testrun.Synced
	// changes are --changed-since's, and skipped the specs it left out
	// (set by runTest and testScript).
	changes *testrun.Changes
	skipped int
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

// wallyLine is what adds TestEZ to a Wally project; jestWallyLines add
// Jest-Lua (its runner and the globals specs require).
const (
	wallyLine      = `TestEZ = "roblox/testez@0.4.1"`
	jestWallyLines = "Jest = \"jsdotlua/jest@3.10.0\"\n    JestGlobals = \"jsdotlua/jest-globals@3.10.0\""
)

func runTest(ctx context.Context, env *Env, args *TestArgs) (*Result, error) {
	err := checkTestArgs(args)
	if err != nil {
		return nil, err
	}
	if len(args.Merge) > 0 {
		return runTestMerge(env, args)
	}
	if args.ChangedSince != "" {
		if args.changes, err = changedSince(ctx, args); err != nil {
			return nil, err
		}
	}
	script, names, err := testScript(args, env.specScope())
	if errors.Is(err, testrun.ErrUnchanged) {
		return unchangedReport(env, args)
	}
	if err != nil {
		return nil, err
	}
	if args.changes != nil {
		fmt.Fprintf(env.stderr(), "test: --changed-since %s: skipping %d spec(s): they and everything they require are unchanged\n", args.ChangedSince, args.skipped)
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
	var data actions.ExecResult
	started := time.Now()
	// History false asks the plugin to leave no undo step for the
	// temporary folder (ignored by plugins that predate it).
	noHistory := false
	req := actions.ExecRequest{Script: script, ChunkName: "StudioBridgeTest", History: &noHistory}
	err := action(ctx, env, actions.Exec, req, &data, func(p json.RawMessage) {
		var wire actions.LogLine
		if json.Unmarshal(p, &wire) == nil && env.Stderr != nil {
			l := lineOf(wire)
			// the specs' own output: on stderr, so stdout keeps the
			// report; naming files, not the mounted instances
			l.Body = testrun.RenameInstances(l.Body, names)
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
	if args.ChangedSince != "" && len(args.Merge) > 0 {
		return Usagef("test: %s merges reports; %s chooses specs to run, and does not combine with it", ArgName("merge"), ArgName("changedSince"))
	}
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

// testScript is the exec script (testrun.Script): one CONFIG line, then
// the runner. names maps the instances it will mount to their files.
func testScript(args *TestArgs, scope testrun.SpecScope) (script string, names map[string]string, err error) {
	args.synced = findSyncedSpec(SourceMap(), args)
	c := testrun.Config{
		Root: args.Root, Synced: args.synced, Paths: args.Paths, Scope: scope,
		TestEZPath: args.TestEZPath, Runner: args.Runner, JestPath: args.JestPath,
	}
	if args.changes != nil {
		skipChanged(args, &c)
	}
	built, err := testrun.Script(c)
	if c.SkipFile != nil {
		args.skipped = built.Skipped
	}
	switch {
	case errors.Is(err, testrun.ErrUnchanged):
		return "", nil, err
	case errors.Is(err, testrun.ErrNoSpecs):
		var where any = CurrentFolder("")
		if len(args.Paths) > 0 {
			where = strings.Join(args.Paths, ", ")
		} else if wd, err := os.Getwd(); err == nil {
			where = CurrentFolder(wd)
		}
		return "", nil, UsageError{fmt.Errorf("test: %w in %w (files named *.spec.luau or *.spec.lua)", testrun.ErrNoSpecs, Wordf("%s", where))}
	case err != nil:
		return "", nil, UsageError{fmt.Errorf("test: %w", err)}
	}
	return built.Script, built.Names, nil
}

// specScope is where test may read spec files: the surface's project root,
// confined or not.
func (env *Env) specScope() testrun.SpecScope {
	return testrun.SpecScope{Project: env.Project, Confine: env.Confine}
}

// testResult decodes the runner's answer into the report.
func testResult(env *Env, args *TestArgs, values []json.RawMessage, took time.Duration) (*Result, error) {
	ans, err := testrun.DecodeAnswer(values)
	if err != nil {
		return nil, err
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
		return nil, UsageError{fmt.Errorf("test: %w under %s (ModuleScripts named *.spec)", testrun.ErrNoSpecs, where)}
	default:
		return nil, fmt.Errorf("test: the runner failed: %s", ans.Error)
	}
	return runReport(args, ans.Data(SourceMap(), took))
}

// runReport renders one run's report: text or GitHub, JUnit when asked, a
// failure when a test failed.
func runReport(args *TestArgs, data TestData) (*Result, error) {
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

// runTestMerge is test --merge: the shards' reports as one, in the format
// asked for, the timings file updated with every shard's durations.
func runTestMerge(env *Env, args *TestArgs) (*Result, error) {
	parts := make([]*ShardedTestData, 0, len(args.Merge))
	for _, f := range args.Merge {
		p, err := testrun.ReadReport(f)
		if err != nil {
			return nil, runnerUsage(err)
		}
		parts = append(parts, p)
	}
	data, err := testrun.MergeReports(parts, args.Merge)
	if err != nil {
		return nil, runnerUsage(err)
	}
	old, err := testrun.ReadTimings(args.Timings)
	if err != nil {
		return nil, UsageError{err}
	}
	if err := writeTimings(args.Timings, old, data.SpecDurations); err != nil {
		logOf(env).Warn("test --merge: the timings file could not be written", "file", args.Timings, "err", err)
	}
	return testReport(args, data)
}

// testReport renders a merged report as one run's: text or GitHub, JUnit
// when asked, a failure when a test failed.
func testReport(args *TestArgs, data *ShardedTestData) (*Result, error) {
	d := *data
	res := &Result{Data: d}
	switch args.Reporter {
	case "github":
		res.Render = func() string { return d.GitHub() }
	default:
		res.Render = func() string { return d.Summary() }
	}
	if args.JUnit != "" {
		if err := os.WriteFile(args.JUnit, d.JUnit(), 0o644); err != nil {
			return nil, fmt.Errorf("test: write the JUnit report: %w", err)
		}
	}
	if d.Failed > 0 {
		res.Failure = fmt.Sprintf("%d of %d tests failed", d.Failed, d.Passed+d.Failed)
	}
	return res, nil
}

// writeTimings updates the timings file at path (none: "") with measured
// (spec → ms), keeping the specs this run did not measure, atomically.
func writeTimings(path string, old, measured map[string]int64) error {
	raw := testrun.EncodeTimings(old, measured)
	if path == "" || raw == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(path, raw)
}

// parseShard is --shard I/N (testrun.ParseShard), a usage error when it is
// not one.
func parseShard(s string) (testrun.Shard, error) {
	sel, err := testrun.ParseShard(s)
	return sel, runnerUsage(err)
}

// runnerUsage makes the runner's usage errors (testrun.UsageError) the
// command's.
func runnerUsage(err error) error {
	var ue testrun.UsageError
	if errors.As(err, &ue) {
		return UsageError{err}
	}
	return err
}
