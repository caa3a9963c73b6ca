package actions

// Shape returns new values of an action's request and result types, for
// code that handles any action by name (the transcript replays, which
// check every recorded payload against these types). ok is false for a
// name that is not an action.
func Shape(name string) (request, result any, ok bool) {
	switch name {
	case State:
		return &StateRequest{}, &StateResult{}, true
	case Exec:
		return &ExecRequest{}, &ExecResult{}, true
	case Logs:
		return &LogsRequest{}, &LogsResult{}, true
	case Subscribe, Unsubscribe:
		return &SubscribeRequest{}, &SubscribeResult{}, true
	case Query:
		return &QueryRequest{}, &QueryResult{}, true
	case Screenshot:
		return &ScreenshotRequest{}, &ScreenshotResult{}, true
	case Play:
		return &PlayRequest{}, &PlayResult{}, true
	case Probe:
		return &ProbeRequest{}, &ProbeResult{}, true
	case ScriptRead:
		return &ScriptReadRequest{}, &ScriptReadResult{}, true
	case ScriptGrep:
		return &ScriptGrepRequest{}, &ScriptGrepResult{}, true
	case ScriptEdit:
		return &ScriptEditRequest{}, &ScriptEditResult{}, true
	}
	return nil, nil, false
}
