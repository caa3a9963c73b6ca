package actions

// ScriptRead is the scriptRead action's name.
const ScriptRead = "scriptRead"

// ScriptReadRequest asks for the text of one script as the user sees it:
// the open editor's text, unsaved work included, else the edit-time source.
type ScriptReadRequest struct {
	Path string `json:"path"`
	// Lines is "A-B", "A-" (to the end) or "A"; empty reads the whole text.
	Lines string `json:"lines,omitempty"`
	// AllowPlay lets a playtest's server or client DataModel answer (its
	// scripts are copies made at Play); without it they refuse.
	AllowPlay bool `json:"allowPlay,omitempty"`
}

// ScriptReadResult is the plugin's answer: Source for the whole text, or
// FirstLine and Lines for a range.
type ScriptReadResult struct {
	Path      string `json:"path"`
	ClassName string `json:"className"`
	// Hash identifies the whole text (also when only a range was sent);
	// give it to scriptEdit as ExpectHash.
	Hash       string   `json:"hash"`
	LineCount  int      `json:"lineCount"`
	FromEditor bool     `json:"fromEditor"`
	Source     *string  `json:"source,omitempty"`
	FirstLine  int      `json:"firstLine,omitempty"`
	Lines      []string `json:"lines,omitempty"`
}
