package actions

// ScriptGrep is the scriptGrep action's name.
const ScriptGrep = "scriptGrep"

// ScriptGrepRequest searches the text of every script under Root, line by
// line, in tree order.
type ScriptGrepRequest struct {
	// Pattern is a Luau pattern, or plain text with Literal.
	Pattern      string `json:"pattern"`
	Literal      bool   `json:"literal,omitempty"`
	IgnoreCase   bool   `json:"ignoreCase,omitempty"`
	ContextLines int    `json:"contextLines,omitempty"`
	// Root is an instance path; empty searches the place.
	Root string `json:"root,omitempty"`
	// Classes limits the search to Script, LocalScript, ModuleScript.
	Classes      []string `json:"classes,omitempty"`
	MaxPerScript int      `json:"maxPerScript,omitempty"`
	MaxMatches   int      `json:"maxMatches,omitempty"`
	// Cursor is a previous page's NextCursor, unchanged.
	Cursor    string `json:"cursor,omitempty"`
	AllowPlay bool   `json:"allowPlay,omitempty"`
}

// ScriptGrepMatch is one matching line.
type ScriptGrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	// Column is the byte column (from 1) of the line's first match.
	Column int `json:"column"`
	// Text is the line, cut to 400 bytes.
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// ScriptGrepResult is one page of matches.
type ScriptGrepResult struct {
	Matches []ScriptGrepMatch `json:"matches"`
	// NextCursor, when set, continues the search where this page stopped.
	NextCursor string `json:"nextCursor,omitempty"`
	// CutScripts had more matches than MaxPerScript.
	CutScripts []string `json:"cutScripts,omitempty"`
	// Scripts and Bytes are what this page searched; Instances what it
	// walked.
	Scripts   int `json:"scripts"`
	Bytes     int `json:"bytes"`
	Instances int `json:"instances"`
	// Slices is how many pieces the plugin cut the work into (yielding a
	// frame between them); LongestSliceMs and MedianSliceMs are the longest
	// and the median piece, in wall time.
	Slices         int     `json:"slices"`
	LongestSliceMs float64 `json:"longestSliceMs"`
	MedianSliceMs  float64 `json:"medianSliceMs"`
}
