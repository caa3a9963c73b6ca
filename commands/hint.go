package commands

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Hint explains what an error's details say, for people, or returns "".
// The error texts themselves are fixed (the MCP spec words them); the
// details a plugin sends beside them say which part of a path exists.
func Hint(err error) string {
	var perr *protocol.Error
	if !errors.As(err, &perr) || len(perr.Details) == 0 {
		return ""
	}
	if perr.Code == protocol.CodeInstanceNotFound {
		var d struct {
			ResolvedPath   string `json:"resolvedPath"`
			MissingSegment string `json:"missingSegment"`
		}
		if json.Unmarshal(perr.Details, &d) == nil && d.ResolvedPath != "" && d.MissingSegment != "" {
			return fmt.Sprintf("%s exists, but has no child named %q (names are case-sensitive; write a name with dots as Parent[\"a.b\"])", d.ResolvedPath, d.MissingSegment)
		}
	}
	return ""
}
