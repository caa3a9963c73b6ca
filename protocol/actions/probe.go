package actions

// Probe is the probe action's name.
const Probe = "probe"

// ProbeRequest asks for the facts doctor reads; Active also opens (and
// closes) one web stream to the host's port.
type ProbeRequest struct {
	Active bool `json:"active"`
}

// ProbeResult is what the probe reports about its Studio
// (plugin/src/Actions/Probe.luau); commands/doctor_window.go turns it into
// checks.
type ProbeResult struct {
	// Settings: "ok" (a value written reads back), "nil" (GetSetting gave
	// nil for a key just written), or "error" (SetSetting or GetSetting
	// raised; SettingsError says what).
	Settings      string `json:"settings"`
	SettingsError string `json:"settingsError,omitempty"`
	// PluginConnection: PluginConnectionService exists in this Studio.
	PluginConnection bool `json:"pluginConnection"`
	// Loadstring: loadstring compiles here (else exec compiles through a
	// ModuleScript's Source, which Studio limits to 200,000 characters).
	Loadstring bool `json:"loadstring"`
	// CaptureService: StudioCaptureService exists; CanCapture is its
	// CanCaptureScreenshot() here (nil: unknown).
	CaptureService bool  `json:"captureService"`
	CanCapture     *bool `json:"canCapture"`
	// RunService as this DataModel sees it.
	RunMode bool `json:"runMode"`
	Running bool `json:"running"`
	Client  bool `json:"client"`
	Server  bool `json:"server"`
	Edit    bool `json:"edit"`
	// HTTPEnabled is HttpService.HttpEnabled (nil: unreadable).
	HTTPEnabled *bool `json:"httpEnabled"`
	// Recording: ChangeHistoryService:TryBeginRecording during a playtest:
	// "ok", "nil" (refused), or "n/a" (no playtest now).
	Recording string `json:"recording"`
	// TestRunning: StudioTestService.EditModeActive is false (Studio runs
	// a test, whether or not its DataModels run the plugin).
	TestRunning bool `json:"testRunning"`
	// Streams is how many web streams the plugin holds itself; Stream is
	// the active probe's outcome: "" (not run), "ok", or Studio's error.
	Streams int    `json:"streams"`
	Stream  string `json:"stream"`
}
