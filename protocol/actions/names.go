package actions

// All lists every action name the plugin handles, in the order
// protocol/ACTIONS.md describes them. The plugin derives its capability
// list from its own handler table (plugin/src/Main.luau); TestAllNames and
// the transcripts keep the two in step.
var All = []string{State, Logs, Query, Exec, Screenshot, Subscribe, Unsubscribe, Play, ScriptRead, ScriptGrep, ScriptEdit, Probe}
