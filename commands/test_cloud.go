package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/studio-bridge/studio-bridge/cloud"
	"github.com/studio-bridge/studio-bridge/commands/testrun"
)

// CloudTest are test --cloud's own arguments: how a suite is split across
// concurrent Open Cloud tasks and CI jobs, and how reports are merged.
type CloudTest struct {
	Parallel      int      `json:"parallel" mcp:"-" usage:"with --cloud: run the specs in N concurrent Open Cloud tasks (default 4; at most 10 per place, Open Cloud's limit)"`
	Shard         string   `json:"shard" mcp:"-" usage:"with --cloud: run only slice I of N (e.g. 2/4), the same slices in every job, for a CI matrix; merge the reports with --merge"`
	Timings       string   `json:"timings" mcp:"-" usage:"with --cloud: balance slices by the spec durations in FILE (from earlier runs; every run writes it)"`
	NoUploadCache bool     `json:"noUploadCache" flag:"no-upload-cache" mcp:"-" usage:"with --cloud --place-file: upload even when the file is unchanged since its last upload to that place"`
	Merge         []string `json:"merge" mcp:"-" usage:"merge the --json reports of --shard runs (FILE, repeated) into one report, in any format"`
}

// Open Cloud's limit of unfinished tasks per place (docs/open-cloud.md).
const (
	maxTasksPerPlace = 10
	defaultParallel  = 4
)

// tuneCloudClient, when set (by tests), adjusts the client of every cloud
// test run: shorter polls against the stand-in.
var tuneCloudClient func(*cloud.Client)

// checkCloudTestArgs refuses test --cloud's arguments where they do not
// apply.
func checkCloudTestArgs(args *TestArgs) error {
	c := &args.CloudTest
	if len(c.Merge) > 0 {
		if len(c.Merge) > testrun.MaxShards {
			return Usagef("test: %s names %d reports; at most %d", ArgName("merge"), len(c.Merge), testrun.MaxShards)
		}
		if len(args.Paths) > 0 || args.Root != "" || args.Cloud || args.Play || args.Run {
			return Usagef("test: %s merges reports; it takes no spec paths, %s, %s or a playtest", ArgName("merge"), ArgName("root"), ArgName("cloud"))
		}
		return nil
	}
	if !args.Cloud {
		for _, f := range []struct {
			name ArgName
			set  bool
		}{{"parallel", c.Parallel != 0}, {"shard", c.Shard != ""}, {"timings", c.Timings != ""}, {"noUploadCache", c.NoUploadCache}} {
			if f.set {
				return Usagef("test: %s only applies with %s", f.name, ArgName("cloud"))
			}
		}
		return nil
	}
	if c.Parallel < 0 || c.Parallel > maxTasksPerPlace*maxPlaces {
		return Usagef("test: %s %d: give 1 to %d per place (Open Cloud runs at most %d unfinished tasks per place)", ArgName("parallel"), c.Parallel, maxTasksPerPlace, maxTasksPerPlace)
	}
	if _, err := parseShard(c.Shard); err != nil {
		return err
	}
	return nil
}

// maxPlaces bounds --place's list.
const maxPlaces = 20

// placeList reads --place (or ROBLOX_PLACE_ID): one place ID or a
// comma-separated list of places of the universe.
func placeList(value string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(value, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if n, err := strconv.ParseInt(p, 10, 64); err != nil || n <= 0 {
			return nil, Usagef("test --cloud: %s: %q is not a place ID (a positive whole number; several are comma-separated)", ArgName("place"), p)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) > maxPlaces {
		return nil, Usagef("test --cloud: %s lists %d places; at most %d", ArgName("place"), len(out), maxPlaces)
	}
	return out, nil
}

// cloudPlace is one place a run uses and the version its tasks must see.
type cloudPlace struct {
	id int64
	// version is the expected version (0: the latest, unchecked); pinned
	// says tasks name it, else they run unpinned and check it in-task.
	version int64
	pinned  bool
}

// cloudTestRun is one test --cloud run: its client, places and runner.
type cloudTestRun struct {
	env      *Env
	args     *TestArgs
	client   *cloud.Client
	universe int64
	places   []cloudPlace
	script   string // the runner, CONFIG first
	timeout  time.Duration
	// Counters the tests read: uploads made, races re-run pinned.
	uploads, races int
	mu             sync.Mutex
}

// runTestCloud is test --cloud: the runner as Open Cloud Luau Execution
// tasks against a place version that holds TestEZ and the specs (--root),
// split across --parallel tasks (and --place's places), or one slice of
// --shard. Spec files from disk are refused before this (checkTestArgs):
// whether a cloud server may create ModuleScripts with Source is not known
// without the real API (docs/testing.md).
func runTestCloud(ctx context.Context, env *Env, args *TestArgs, script string) (*Result, error) {
	r, err := newCloudTestRun(env, args, script)
	if err != nil {
		return nil, err
	}
	data, err := r.run(ctx)
	if err != nil {
		return nil, err
	}
	return testReport(args, data)
}

func newCloudTestRun(env *Env, args *TestArgs, script string) (*cloudTestRun, error) {
	placeArg := args.Place
	if placeArg == "" {
		placeArg = envPlace()
	}
	ids, err := placeList(placeArg)
	if err != nil {
		return nil, err
	}
	first := ""
	if len(ids) > 0 {
		first = ids[0]
	}
	cp := args.CloudPlace
	cp.Place = first
	cp.cmd = "test" // its errors name test --cloud
	s, err := checkCloud(env, &ExecArgs{Cloud: true, CloudPlace: cp})
	if err != nil {
		return nil, err
	}
	if len(ids) > 1 && args.PlaceVersion > 0 {
		return nil, Usagef("test --cloud: %s names one version, and %s lists %d places, whose versions differ: give one place, or %s to upload to each", ArgName("placeVersion"), ArgName("place"), len(ids), ArgName("placeFile"))
	}
	if args.Parallel > maxTasksPerPlace*max(len(ids), 1) {
		return nil, Usagef("test --cloud: %s %d is more than %d tasks on each of %d place(s): Open Cloud runs at most %d unfinished tasks per place; lower it or list more places with %s", ArgName("parallel"), args.Parallel, maxTasksPerPlace, len(ids), maxTasksPerPlace, ArgName("place"))
	}
	s.client.Limiter = cloud.NewLimiter()
	if tuneCloudClient != nil {
		tuneCloudClient(s.client)
	}
	r := &cloudTestRun{env: env, args: args, client: s.client, universe: s.universe, script: script,
		timeout: min(env.Timeout, cloud.MaxTimeout)}
	for _, id := range ids {
		n, _ := strconv.ParseInt(id, 10, 64)
		r.places = append(r.places, cloudPlace{id: n, version: int64(args.PlaceVersion), pinned: args.PlaceVersion > 0})
	}
	return r, nil
}

// run uploads (unless cached), lists the specs, splits them and runs one
// task per slice, concurrently, and merges their reports.
func (r *cloudTestRun) run(ctx context.Context) (*ShardedTestData, error) {
	started := time.Now()
	if err := r.upload(ctx); err != nil {
		return nil, err
	}
	timings, err := testrun.ReadTimings(r.args.Timings)
	if err != nil {
		return nil, UsageError{err}
	}
	sel, _ := parseShard(r.args.Shard)
	parallel := r.args.Parallel
	if parallel == 0 {
		parallel = defaultParallel
	}
	var slices [][]string
	if parallel == 1 && sel.Count <= 1 {
		slices = [][]string{nil} // one task runs everything: nothing to list first
	} else {
		all, err := r.listSpecs(ctx)
		if err != nil {
			return nil, err
		}
		mine := testrun.PickShard(all, timings, sel)
		if len(mine) == 0 && r.args.ChangedSince != "" {
			// --changed-since left every spec of this slice out
			return &ShardedTestData{TestData: TestData{Tests: []TestCase{}}, Shards: []ShardReport{}}, nil
		}
		if len(mine) == 0 {
			return nil, Usagef("test --cloud: shard %s of %d specs under %s is empty; use fewer shards", sel, len(all), r.args.Root)
		}
		for _, sl := range testrun.SplitSpecs(mine, timings, parallel) {
			if len(sl) > 0 {
				slices = append(slices, sl)
			}
		}
	}
	parts, err := r.runSlices(ctx, slices)
	if err != nil {
		return nil, err
	}
	data, err := testrun.MergeReports(parts, make([]string, len(parts)))
	if err != nil {
		return nil, err
	}
	data.DurationMs = time.Since(started).Milliseconds()
	if err := writeTimings(r.args.Timings, timings, data.SpecDurations); err != nil {
		logOf(r.env).Warn("test --cloud: the timings file could not be written", "file", r.args.Timings, "err", err)
	}
	return data, nil
}

// upload makes sure every place holds --place-file: uploaded, unless the
// upload cache says these bytes already are a version of it. Tasks then
// run unpinned (landing on warm servers) and check the version in-task.
func (r *cloudTestRun) upload(ctx context.Context) error {
	if r.args.PlaceFile == "" {
		return nil
	}
	var cache *cloud.UploadCache
	if !r.args.NoUploadCache {
		cache = cloud.NewUploadCache(cloud.DefaultUploadCache)
	}
	for i := range r.places {
		p := &r.places[i]
		done := r.env.StatusAfter(fmt.Sprintf("uploading %s to place %d…", r.args.PlaceFile, p.id))
		v, uploaded, err := r.client.UploadPlaceCached(ctx, cache, r.universe, p.id, r.args.PlaceFile)
		done()
		if err != nil {
			return cloudError(ctx, err)
		}
		if uploaded {
			r.uploads++
		}
		p.version, p.pinned = v, false
	}
	return nil
}

// specLister is where a run's spec list comes from. The seam for the
// source map: when the place is built from a Rojo project, the list (and,
// for --changed-since, each spec's files) can come from sourcemap.json
// without a task; until then discoverSpecs asks the place.
type specLister func(ctx context.Context) ([]string, error)

// listSpecs lists the specs under --root.
func (r *cloudTestRun) listSpecs(ctx context.Context) ([]string, error) {
	var lister specLister = r.discoverSpecs
	return lister(ctx)
}

// discoverSpecs lists the specs under --root with one task (the runner
// with CONFIG.discover).
func (r *cloudTestRun) discoverSpecs(ctx context.Context) ([]string, error) {
	done := r.env.StatusAfter("listing the specs in Open Cloud…")
	defer done()
	ans, _, err := r.runTask(ctx, r.places[0], withConfig(r.script, "discover=true"), nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Error string   `json:"error"`
		Specs []string `json:"specs"`
	}
	if err := json.Unmarshal([]byte(ans.text), &list); err != nil {
		return nil, fmt.Errorf("test --cloud: the spec list is not JSON (task %s): %w", ans.taskPath, err)
	}
	if list.Error != "" || list.Specs == nil {
		// the runner's refusals (no root, no specs) read as a run's do
		if _, err := testResult(r.env, r.args, ans.values, 0); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("test --cloud: the discovery task answered no spec list (task %s)", ans.taskPath)
	}
	return list.Specs, nil
}

// taskAnswer is one task's answer: the runner's JSON text and results.
type taskAnswer struct {
	text     string
	values   []json.RawMessage
	taskPath string
}

// runTask runs one task with script on place p (unpinned with an in-task
// version check when p's version is known but not pinned; pinned again
// when the check failed) and returns the runner's answer. specs names the
// task's specs in its log prefix.
func (r *cloudTestRun) runTask(ctx context.Context, p cloudPlace, script string, onLine func(Line)) (*taskAnswer, time.Duration, error) {
	task := cloud.Task{Script: script, UniverseID: r.universe, PlaceID: p.id, Timeout: r.timeout}
	if p.pinned {
		task.Version = p.version
	} else if p.version > 0 {
		task.Script = withConfig(script, "placeVersion="+strconv.FormatInt(p.version, 10))
	}
	started := time.Now()
	var out *cloud.Outcome
	var err error
	for {
		out, err = r.client.Run(ctx, task, func(cl cloud.Line) {
			if onLine != nil {
				onLine(Line{Level: cloudLevel(cl.Type), Body: cl.Message})
			}
		})
		// A create still refused for the place's limit after the client's
		// attempts waits for a slot: other jobs of a CI matrix share the
		// place, and a refusal is safe to retry (a lost answer never is).
		if !refusedCreate(err) || time.Since(started) > createPatience || ctx.Err() != nil {
			break
		}
		logOf(r.env).Info("test --cloud: the place runs its limit of tasks; waiting for a slot", "place", p.id)
		if err := cloud.Sleep(ctx, slotWait); err != nil {
			return nil, time.Since(started), &cloud.Error{Kind: cloud.KindInterrupted, Err: err, Message: "interrupted while waiting for a task slot; no task was created"}
		}
	}
	took := time.Since(started)
	if err != nil {
		return nil, took, err
	}
	if f := out.Failure(); f != nil {
		return nil, took, f
	}
	if out.State != cloud.StateComplete {
		msg := ""
		if out.Error != nil {
			msg = out.Error.Message
		}
		return nil, took, fmt.Errorf("test --cloud: the runner failed in Open Cloud (task %s): %s", out.TaskPath, msg)
	}
	ans := &taskAnswer{values: out.Results, taskPath: out.TaskPath}
	if len(out.Results) != 1 || json.Unmarshal(out.Results[0], &ans.text) != nil {
		return nil, took, fmt.Errorf("test --cloud: the runner answered an unexpected shape (task %s)", out.TaskPath)
	}
	var peek struct {
		Error        string `json:"error"`
		PlaceVersion int64  `json:"placeVersion"`
	}
	if json.Unmarshal([]byte(ans.text), &peek) == nil && peek.Error == "place-version" {
		if p.pinned {
			return nil, took, fmt.Errorf("test --cloud: a task pinned to version %d ran version %d (task %s)", p.version, peek.PlaceVersion, out.TaskPath)
		}
		// An unpinned task reached a server on another version (someone
		// uploaded, or a server still on the last one): run it again,
		// pinned, which is always exactly the expected version.
		r.mu.Lock()
		r.races++
		r.mu.Unlock()
		logOf(r.env).Info("test --cloud: an unpinned task ran another place version; running it again pinned", "task", out.TaskPath, "ran", peek.PlaceVersion, "want", p.version)
		p.pinned = true
		more, t2, err := r.runTask(ctx, p, script, onLine)
		return more, took + t2, err
	}
	return ans, took, nil
}

// sliceState tracks one slice's task for the messages of an interrupted or
// failed run.
type sliceState struct {
	specs []string
	err   error
}

// runSlices runs one task per slice, concurrently under one context, and
// returns their reports in slice order. A task that reached Open Cloud's
// deadline is a failed test per spec it held; any other failure of a task
// fails the run, stopping the others' polling (their tasks run on, and
// the error says which).
func (r *cloudTestRun) runSlices(ctx context.Context, slices [][]string) ([]*ShardedTestData, error) {
	parts := make([]*ShardedTestData, len(slices))
	states := make([]sliceState, len(slices))
	g, gctx := errgroup.WithContext(ctx)
	for i, specs := range slices {
		p := r.places[i%len(r.places)]
		states[i].specs = specs
		g.Go(func() error {
			script := withConfig(r.script, "perSpec=true")
			if specs != nil {
				script = withConfig(script, "only="+luauList(specs))
			}
			prefix := ""
			if len(slices) > 1 {
				prefix = fmt.Sprintf("[task %d] ", i+1)
			}
			ans, took, err := r.runTask(gctx, p, script, func(l Line) {
				if r.env.Stderr != nil {
					l.Body = prefix + l.Body
					fmt.Fprint(r.env.Stderr, RenderLine(l))
				}
			})
			switch {
			case err == nil:
				part, err := r.report(ans, i+1, specs, took)
				states[i].err = err
				parts[i] = part
				return err
			case cloud.KindOf(err) == cloud.KindTimeout && gctx.Err() == nil:
				parts[i] = deadlineReport(i+1, specs, err, took)
				return nil
			}
			states[i].err = err
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, r.sliceError(ctx, err, states)
	}
	return parts, nil
}

// report decodes one task's runner answer into its part of the report.
func (r *cloudTestRun) report(ans *taskAnswer, index int, specs []string, took time.Duration) (*ShardedTestData, error) {
	one := *r.args
	one.JUnit, one.Reporter = "", ""
	res, err := testResult(r.env, &one, ans.values, took)
	if err != nil {
		return nil, err
	}
	var extra struct {
		SpecDurations map[string]int64 `json:"specDurations"`
	}
	_ = json.Unmarshal([]byte(ans.text), &extra) // testResult read the same text
	data := res.Data.(TestData)
	if specs == nil {
		seen := map[string]bool{}
		for _, t := range data.Tests {
			if !seen[t.File] {
				seen[t.File] = true
				specs = append(specs, t.File)
			}
		}
	}
	return &ShardedTestData{TestData: data, SpecDurations: extra.SpecDurations,
		Shards: []ShardReport{{Index: index, TaskPath: ans.taskPath, DurationMs: took.Milliseconds(), Specs: specs}}}, nil
}

// deadlineReport is a slice whose task reached Open Cloud's deadline: each
// of its specs is a failed test saying so, never a passing one.
func deadlineReport(index int, specs []string, err error, took time.Duration) *ShardedTestData {
	var ce *cloud.Error
	path := ""
	if errors.As(err, &ce) {
		path = ce.TaskPath
	}
	d := &ShardedTestData{TestData: TestData{Tests: []TestCase{}}, Shards: []ShardReport{{Index: index, TaskPath: path, DurationMs: took.Milliseconds(), Specs: specs}}}
	names := specs
	if names == nil {
		names = []string{"(every spec under --root)"}
	}
	for _, s := range names {
		d.Tests = append(d.Tests, TestCase{Name: s, Status: "failed", File: s,
			Message: fmt.Sprintf("the Open Cloud task running this spec did not finish: %v; its results are lost (split the suite further with --parallel)", err)})
	}
	d.Count()
	return d
}

// sliceError is the run's error when a task failed or the run was
// interrupted: the cause, and which tasks run on in Open Cloud (there is
// no cancel call).
func (r *cloudTestRun) sliceError(ctx context.Context, first error, states []sliceState) error {
	var running []string
	creating := 0
	for _, s := range states {
		var ce *cloud.Error
		switch {
		case !errors.As(s.err, &ce) || ce.Kind != cloud.KindInterrupted:
		case ce.TaskPath != "":
			running = append(running, ce.TaskPath)
		default:
			creating++
		}
	}
	if ctx.Err() != nil {
		msg := "test --cloud: interrupted"
		if len(running) > 0 {
			msg += fmt.Sprintf("; %d task(s) run on in Open Cloud until they end or reach their timeout (it has no cancel call):\n  %s", len(running), strings.Join(running, "\n  "))
		}
		if creating > 0 {
			msg += fmt.Sprintf("\n%d more task(s) were being created: they may or may not exist (see the place's running tasks)", creating)
		}
		return fmt.Errorf("%s: %w", msg, ctx.Err())
	}
	if len(running) > 0 {
		return fmt.Errorf("%w\n(stopped waiting for %d other task(s), which run on in Open Cloud: %s)", cloudError(ctx, first), len(running), strings.Join(running, ", "))
	}
	return cloudError(ctx, first)
}

// withConfig adds Luau fields to the runner's CONFIG line (its first line,
// `local CONFIG = {…}`, built by testScript).
func withConfig(script, fields string) string {
	line, rest, _ := strings.Cut(script, "\n")
	if !strings.HasSuffix(line, "}") {
		return script
	}
	return line[:len(line)-1] + "," + fields + "}\n" + rest
}

// luauList is a Luau array of strings.
func luauList(items []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		testrun.LuauString(&b, s)
	}
	b.WriteByte('}')
	return b.String()
}

func envPlace() string { return strings.TrimSpace(os.Getenv(EnvPlaceID)) }

// logOf is env's logger, or one that drops everything.
func logOf(env *Env) *slog.Logger {
	if env.Log != nil {
		return env.Log
	}
	return slog.New(slog.DiscardHandler)
}

// How long a run waits for a slot on a place that keeps refusing creates
// (429), and how long between tries beyond the client's own: jest-roblox-cli
// measured about 10 s before a freed slot takes a task.
var (
	createPatience = 10 * time.Minute
	slotWait       = 5 * time.Second
)

// refusedCreate reports a create refused with 429 after every attempt: no
// task was made.
func refusedCreate(err error) bool {
	var ce *cloud.Error
	return errors.As(err, &ce) && ce.Kind == cloud.KindRateLimited && ce.Op == "create task" && ce.TaskPath == ""
}
