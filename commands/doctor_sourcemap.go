package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// doctor's explicit check of the source map against a window (issue 24: a
// mapped instance missing in Studio is reported): a batch of read-only
// queries, one per synced folder (ReplicatedStorage.Shared, …), each
// answering its tree of names to the depth the map needs, compared with the
// map's scripts. Commands never pay for it; they report a missing instance
// only when Studio's answer to them says so (stale.go).

// mapQueryDepth is the deepest query the plugin answers (Query.luau);
// scripts deeper below their folder are not checked.
const mapQueryDepth = 10

// nameNode is a query answer's tree of names.
type nameNode struct {
	Name     string     `json:"name"`
	Children []nameNode `json:"children"`
}

// mapFolder is one query of the batch: a folder and the scripts under it.
type mapFolder struct {
	names   []string
	entries []sourcemap.Entry
}

// sourceMapCheck is the studio.sourceMap check of one window's edit session.
func sourceMapCheck(ctx context.Context, env *Env, conn bridge.Conn, edit protocol.SessionInfo) Check {
	c := Check{Key: "studio.sourceMap"}
	m := SourceMap()
	if m == nil || m.Len() == 0 {
		c.Status, c.Detail = StatusNA, "no Rojo source map in the project root (--project, --sourcemap): locations stay DataModel paths"
		return c
	}
	if !edit.HasCapability("query") {
		c.Status, c.Detail = StatusNA, "the plugin has no query action to compare the source map with"
		return c
	}
	var missing []sourcemap.Entry
	unchecked, checked := 0, 0
	for _, f := range mapFolders(m.Entries()) {
		depth := 0
		for _, e := range f.entries {
			depth = max(depth, len(e.Names)-len(f.names))
		}
		depth = min(depth, mapQueryDepth)
		raw, _ := json.Marshal(map[string]any{"path": pathOfNames(f.names), "depth": depth, "properties": []string{"Name"}}) // a fixed shape: cannot fail
		res, err := conn.Call(ctx, edit.SessionID, "query", raw, bridge.CallOptions{Timeout: env.Timeout})
		var ans struct {
			Instance  *nameNode `json:"instance"`
			Truncated bool      `json:"truncated"`
		}
		switch {
		case protocol.CodeOf(err) == protocol.CodeInstanceNotFound:
			missing = append(missing, f.entries...) // the whole folder is not in Studio
			checked += len(f.entries)
			continue
		case err != nil:
			c.Status, c.Detail = StatusNA, "could not query this window: "+err.Error()
			return c
		case json.Unmarshal(res, &ans) != nil || ans.Instance == nil:
			c.Status, c.Detail = StatusNA, "the plugin answered the query an unexpected shape"
			return c
		}
		for _, e := range f.entries {
			switch found := hasNames(*ans.Instance, e.Names[len(f.names):]); {
			case found:
				checked++
			case ans.Truncated || len(e.Names)-len(f.names) > mapQueryDepth:
				unchecked++ // beyond what one query answers: not known
			default:
				missing = append(missing, e)
				checked++
			}
		}
	}
	c.Detail = fmt.Sprintf("%d of the source map's %d scripts are in this window", checked-len(missing), m.Len())
	if unchecked > 0 {
		c.Detail += fmt.Sprintf(" (%d too deep or in too large a folder to check)", unchecked)
	}
	if len(missing) == 0 {
		c.Status = StatusOK
		return c
	}
	c.Status = StatusDegraded
	var names []string
	for i, e := range missing {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(missing)-5))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", e.Path, m.Show(e.File)))
	}
	c.Detail += fmt.Sprintf("; %d are not: %s. Their locations still show as files, and a command that names them says the map is stale", len(missing), strings.Join(names, ", "))
	remake := m.Remake
	if remake == "" {
		remake = "rojo sourcemap default.project.json --output " + sourcemap.FileName
	}
	c.Fix = fmt.Sprintf("if this window holds the project's place, sync it with Rojo (rojo serve) or regenerate the map with `%s`", remake)
	return c
}

// mapFolders groups the entries by their top two names (a service and the
// folder Rojo syncs into it; a script right under a service is its own
// group), in the entries' order.
func mapFolders(entries []sourcemap.Entry) []mapFolder {
	var out []mapFolder
	at := map[string]int{}
	for _, e := range entries {
		n := min(2, len(e.Names))
		key := strings.Join(e.Names[:n], "\x00")
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, mapFolder{names: e.Names[:n]})
		}
		out[i].entries = append(out[i].entries, e)
	}
	return out
}

// hasNames says whether the tree holds the path of names below its root
// (through any of several siblings of one name).
func hasNames(n nameNode, names []string) bool {
	if len(names) == 0 {
		return true
	}
	for _, c := range n.Children {
		if c.Name == names[0] && hasNames(c, names[1:]) {
			return true
		}
	}
	return false
}

// pathOfNames is a path the plugin parses back into exactly these names:
// each name's dots, brackets and backslashes escaped with a backslash.
func pathOfNames(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		var b strings.Builder
		for _, r := range n {
			if r == '.' || r == '[' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, ".")
}
