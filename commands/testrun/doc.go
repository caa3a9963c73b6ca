// Package testrun is the test runner behind `studio-bridge test`: what is
// sent to Studio (or an Open Cloud task) and what comes back, independent
// of how the command is invoked.
//
//   - testrunner.luau is the runner, the Luau that runs in the place: it
//     mounts spec files (or finds the specs under a root), plans and runs
//     them with TestEZ (or Jest-Lua) and answers one JSON document. Script
//     puts its CONFIG line in front (Config: root, a synced spec, or the
//     spec tree read from disk by specTree within a SpecScope).
//   - Answer is that document; Answer.Data turns it into the report,
//     TestData (TestCase per test), naming files rather than the mounted
//     instances; each TestCase carries the test's own durationMs. TestData
//     renders as text, GitHub workflow commands and
//     JUnit XML, and cuts itself to an MCP budget (Fit).
//   - Sharding (SplitSpecs, PickShard, ParseShard), the timings file
//     (ReadTimings, EncodeTimings) and merging shard reports (ReadReport,
//     MergeReports, ShardedTestData) serve test --cloud --parallel,
//     --shard and --merge.
//   - --changed-since: ChangedFiles asks git which files changed since a
//     ref; Changes follows each spec's requires through the Rojo source
//     map (requires.go, over a small Luau tokenizer) and says which specs
//     need not run (Config.SkipFile for spec files, Config.Skip, the
//     runner's CONFIG.skip, for specs in the place). A require it cannot
//     resolve means the spec runs.
//
// The command layer (commands/test.go, commands/test_cloud.go) imports this
// package, not the other way round: it owns the arguments, the session or
// Open Cloud task the script runs in, and the wording of errors, which
// each surface spells its own way. Errors here that the user fixes are
// UsageError (texts naming only CLI-only flags), or ErrNoSpecs.
package testrun
