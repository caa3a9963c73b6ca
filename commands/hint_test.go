package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestHint(t *testing.T) {
	t.Parallel()
	notFound := func(details string) error {
		return &protocol.Error{Code: protocol.CodeInstanceNotFound, Message: "No instance found at path: game.Workspace.A.B", Details: json.RawMessage(details)}
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"missing child", notFound(`{"resolvedPath":"game.Workspace","missingSegment":"A"}`), `game.Workspace exists, but has no child named "A"`},
		{"wrapped", fmt.Errorf("query: %w", notFound(`{"resolvedPath":"game","missingSegment":"Nope"}`)), `game exists, but has no child named "Nope"`},
		{"no details", notFound(``), ""},
		{"odd details", notFound(`[1,2]`), ""},
		{"other code", &protocol.Error{Code: protocol.CodeTimeout, Message: "x", Details: json.RawMessage(`{"resolvedPath":"game","missingSegment":"A"}`)}, ""},
		{"not a protocol error", errors.New("boom"), ""},
	} {
		got := Hint(tc.err)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Hint = %q, want %q", tc.name, got, tc.want)
		}
	}
}
