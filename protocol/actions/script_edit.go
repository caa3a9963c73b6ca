package actions

// ScriptEdit is the scriptEdit action's name.
const ScriptEdit = "scriptEdit"

// ScriptEditOp is one edit of one script: exactly one of Find (with
// Replace), Lines (with With), Source, or Create (with ClassName and
// Source).
type ScriptEditOp struct {
	Path    string  `json:"path"`
	Find    *string `json:"find,omitempty"`
	Replace *string `json:"replace,omitempty"`
	// All replaces every occurrence of Find; without it Find must occur
	// exactly once.
	All   bool    `json:"all,omitempty"`
	Lines string  `json:"lines,omitempty"`
	With  *string `json:"with,omitempty"`
	// Source is the whole new text (with Create: the new script's text).
	Source     *string `json:"source,omitempty"`
	Create     bool    `json:"create,omitempty"`
	ClassName  string  `json:"className,omitempty"`
	RunContext string  `json:"runContext,omitempty"`
}

// ScriptEditRequest is a batch: every edit is computed first, then every
// script written; a failed write puts back the scripts already written.
type ScriptEditRequest struct {
	Edits []ScriptEditOp `json:"edits"`
	// ExpectHashes maps a path to the hash its text must still have (from
	// scriptRead); a script whose text moved answers SCRIPT_CHANGED.
	ExpectHashes map[string]string `json:"expectHashes,omitempty"`
}

// ScriptEdited is what an edit did to one script.
type ScriptEdited struct {
	Path         string `json:"path"`
	ClassName    string `json:"className"`
	Hash         string `json:"hash"`
	PreviousHash string `json:"previousHash,omitempty"`
	LineCount    int    `json:"lineCount"`
	FromEditor   bool   `json:"fromEditor"`
	Created      bool   `json:"created"`
	Changed      bool   `json:"changed"`
	// Diff is a short unified diff of the change (at most 60 lines).
	Diff string `json:"diff"`
}

// ScriptEditResult lists the scripts a batch changed, in edit order.
type ScriptEditResult struct {
	Scripts []ScriptEdited `json:"scripts"`
}
