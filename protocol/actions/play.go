package actions

// Play is the play action's name.
const Play = "play"

// Play's actions and modes.
const (
	PlayStart = "start" // to the edit DataModel
	PlayStop  = "stop"  // to a test's server DataModel
	ModePlay  = "play"  // a server and a client DataModel
	ModeRun   = "run"   // one server DataModel (Run, F8)
)

// PlayRequest starts or stops a playtest.
type PlayRequest struct {
	Action string `json:"action"`
	Mode   string `json:"mode,omitempty"` // with start; default play
}

// PlayResult is {started, mode} for start, {stopping} for stop.
type PlayResult struct {
	Started  bool   `json:"started,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Stopping bool   `json:"stopping,omitempty"`
}
