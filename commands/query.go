package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// QueryArgs are the query command's arguments.
type QueryArgs struct {
	Path              string   `json:"path" pos:"true" usage:"instance path, e.g. Workspace.SpawnLocation ('game.' optional)" desc:"Dot-separated instance path, e.g. 'Workspace.SpawnLocation'. The 'game.' prefix is optional."`
	Depth             int      `json:"depth" short:"d" default:"0" usage:"levels of children to include" desc:"Max child traversal depth. 0 = instance only, 1 = include children, etc. Default: 0."`
	Properties        []string `json:"properties" short:"p" usage:"properties to include (default: a sensible set)" desc:"Specific property names to include. Default: Name, ClassName, Parent."`
	IncludeAttributes bool     `json:"includeAttributes" flag:"attributes" usage:"include the instance's attributes" desc:"Include all attributes on the instance. Default: false."`
	Children          bool     `json:"children" usage:"list the immediate children instead" desc:"List immediate children instead of querying the instance itself. Default: false."`
	ListServices      bool     `json:"listServices" flag:"services" usage:"list the DataModel's services (no path needed)" desc:"List all loaded services in the DataModel. Ignores path. Default: false."`
}

// QueryData is the query command's output (the plugin's answer): one of
// instance, children or services, as the arguments asked.
type QueryData = actions.QueryResult

// QueryDuplicate, QueryNode and QueryService are parts of a QueryData.
type (
	QueryDuplicate = actions.QueryDuplicate
	QueryNode      = actions.QueryNode
	QueryService   = actions.QueryService
)

// MaxQueryDepth is the deepest tree the plugin describes (it refuses more).
const MaxQueryDepth = actions.MaxQueryDepth

// request is the plugin's query payload.
func (a *QueryArgs) request() actions.QueryRequest {
	return actions.QueryRequest{Path: a.Path, Depth: a.Depth, Properties: a.Properties,
		IncludeAttributes: a.IncludeAttributes, Children: a.Children, ListServices: a.ListServices}
}

// Query inspects the DataModel.
var Query = Define(Spec[QueryArgs, QueryData]{
	Definition: Definition{
		Name:           "query",
		Title:          "Inspect the DataModel",
		Summary:        "Inspect an instance of the DataModel: properties, attributes, children.",
		Description:    `Query the Roblox DataModel to inspect instances, properties, attributes, and children. Use dot-separated paths like "Workspace.SpawnLocation" to navigate the instance tree. Returns structured JSON with class names, properties, and child counts.`,
		NeedsSession:   true,
		DefaultContext: protocol.ContextEdit,
		MCP:            true,
		LargeOutput:    true,
		Timeout:        10 * time.Second,
		Noun:           "DataModel query",
	},
	Check: func(args *QueryArgs) error {
		if args.Path == "" && !args.ListServices {
			return Usagef("query needs a path (e.g. Workspace.SpawnLocation), or %s", ArgName("listServices"))
		}
		if args.Depth < 0 || args.Depth > MaxQueryDepth {
			return UsageError{fmt.Errorf("query: depth must be 0–%d, got %d", MaxQueryDepth, args.Depth)}
		}
		return nil
	},
	Run: func(ctx context.Context, env *Env, args *QueryArgs) (*Result, error) {
		var raw json.RawMessage
		if err := action(ctx, env, actions.Query, args.request(), &raw, nil); err != nil {
			return nil, err
		}
		var data QueryData
		var tree map[string]any // the same answer, walked to render it
		if json.Unmarshal(raw, &tree) != nil {
			return nil, &protocol.Error{Code: protocol.CodeInvalidPayload, Message: "query: the plugin answered an unexpected shape"}
		}
		if !slices.Contains(args.Properties, "Source") && elideSources(tree) {
			raw, _ = json.Marshal(tree)
		}
		if json.Unmarshal(raw, &data) != nil {
			return nil, &protocol.Error{Code: protocol.CodeInvalidPayload, Message: "query: the plugin answered an unexpected shape"}
		}
		return &Result{Data: data, Text: renderQuery(tree, len(args.Properties) > 0), Note: duplicatesNote(data.Duplicates)}, nil
	},
})

// elideSources replaces every script's Source in a query answer by a
// pointer to script read ("[12 lines, 340 bytes: studio-bridge script read
// game.X]"): a whole script in a property listing floods the output, and
// Source is the committed text, not what the editor shows. Asking for the
// property by name (--properties Source) keeps it. Reports whether it
// changed anything.
func elideSources(node map[string]any) bool {
	changed := false
	if props, ok := node["properties"].(map[string]any); ok {
		if src, ok := props["Source"].(string); ok {
			path, _ := node["path"].(string)
			props["Source"] = fmt.Sprintf("[%d lines, %d bytes: studio-bridge script read %s]", strings.Count(src, "\n")+1, len(src), path)
			changed = true
		}
	}
	for _, key := range []string{"instance", "children"} {
		switch v := node[key].(type) {
		case map[string]any:
			changed = elideSources(v) || changed
		case []any:
			for _, c := range v {
				if m, ok := c.(map[string]any); ok {
					changed = elideSources(m) || changed
				}
			}
		}
	}
	return changed
}

// duplicatesNote says which segments of the path were ambiguous and that
// the first sibling of each was taken, or "".
func duplicatesNote(dups []QueryDuplicate) string {
	var lines []string
	for _, d := range dups {
		lines = append(lines, fmt.Sprintf("note: %s names %d instances; this is the first of them (query its parent with --children to see them all, or rename them apart)", d.Path, d.Count))
	}
	return strings.Join(lines, "\n")
}

// renderQuery is a query's answer for people. explicit says the caller
// named the properties: then every value is printed whole; otherwise long
// or multi-line text (a script's Source) is summarized, so that a query
// with --depth stays a readable tree.
func renderQuery(data map[string]any, explicit bool) string {
	var b strings.Builder
	if inst, ok := data["instance"].(map[string]any); ok {
		renderInstance(&b, inst, "", explicit)
	}
	for _, key := range []string{"children", "services"} {
		if list, ok := data[key].([]any); ok {
			for _, c := range list {
				if m, ok := c.(map[string]any); ok {
					renderInstance(&b, m, "", explicit)
				}
			}
		}
	}
	return b.String()
}

// maxInlineText is the longest single-line string a query prints among
// default properties.
const maxInlineText = 200

// inlineValue is a property's value as a query line shows it.
func inlineValue(name string, v any, explicit bool) string {
	s, ok := v.(string)
	if explicit || !ok || (len(s) <= maxInlineText && !strings.Contains(s, "\n")) {
		return FormatValue(v)
	}
	return fmt.Sprintf("<text: %d lines, %d bytes; --properties %s prints it>", strings.Count(s, "\n")+1, len(s), name)
}

func renderInstance(b *strings.Builder, inst map[string]any, indent string, explicit bool) {
	fmt.Fprintf(b, "%s%v (%v)", indent, inst["name"], inst["className"])
	if p, ok := inst["path"].(string); ok && indent == "" {
		fmt.Fprintf(b, "  %s", p)
	}
	if n, ok := inst["childCount"].(float64); ok && n > 0 {
		fmt.Fprintf(b, "  [%d children]", int(n))
	}
	b.WriteString("\n")
	for _, section := range []string{"properties", "attributes"} {
		m, ok := inst[section].(map[string]any)
		if !ok || len(m) == 0 {
			continue
		}
		prefix := ""
		if section == "attributes" {
			prefix = "@"
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(b, "%s  %s%s = %s\n", indent, prefix, k, inlineValue(k, m[k], explicit || section == "attributes"))
		}
	}
	if children, ok := inst["children"].([]any); ok {
		for _, c := range children {
			if m, ok := c.(map[string]any); ok {
				renderInstance(b, m, indent+"    ", explicit)
			}
		}
	}
}

// FormatValue renders a typed JSON value ({"$type":"Vector3","value":[…]})
// the way Luau would write it.
func FormatValue(v any) string {
	if v == nil {
		return "nil" // Luau's word for it, not JSON's
	}
	m, ok := v.(map[string]any)
	if !ok {
		raw, _ := json.Marshal(v)
		return string(raw)
	}
	typ, _ := m["$type"].(string)
	switch typ {
	case "":
		raw, _ := json.Marshal(v)
		return string(raw)
	case "EnumItem":
		return fmt.Sprintf("Enum.%v.%v", m["enum"], m["name"])
	case "Instance":
		return fmt.Sprintf("%v (%v)", m["path"], m["className"])
	case "Unsupported":
		return fmt.Sprintf("<%v>", m["typeName"])
	case "BrickColor":
		return fmt.Sprintf("BrickColor.new(%s)", jsonText(m["value"]))
	case "NumberSequence", "ColorSequence":
		// keypoints as time: value (NumberSequence value±envelope; ColorSequence r, g, b)
		list, _ := m["value"].([]any)
		parts := make([]string, 0, len(list))
		for _, k := range list {
			kp, _ := k.([]any)
			if len(kp) < 2 {
				parts = append(parts, jsonText(k))
				continue
			}
			value := jsonText(kp[1])
			if typ == "ColorSequence" {
				value = "(" + numbers(kp[1:]) + ")"
			} else if len(kp) > 2 && jsonText(kp[2]) != "0" {
				value += "±" + jsonText(kp[2])
			}
			parts = append(parts, jsonText(kp[0])+": "+value)
		}
		return fmt.Sprintf("%s(%s)", typ, strings.Join(parts, ", "))
	case "PhysicalProperties":
		p, _ := m["value"].(map[string]any)
		var parts []string
		for _, k := range []string{"density", "friction", "elasticity", "frictionWeight", "elasticityWeight"} {
			if x, ok := p[k]; ok {
				parts = append(parts, k+" "+jsonText(x))
			}
		}
		return fmt.Sprintf("PhysicalProperties(%s)", strings.Join(parts, ", "))
	case "Font":
		family, _ := m["family"].(string)
		// rbxasset://fonts/families/SourceSansPro.json → SourceSansPro
		if i := strings.LastIndex(family, "/"); i >= 0 && strings.HasPrefix(family, "rbxasset://fonts/families/") {
			family = strings.TrimSuffix(family[i+1:], ".json")
		}
		return fmt.Sprintf("Font(%s, %v, %v)", family, m["weight"], m["style"])
	case "Ray":
		r, _ := m["value"].(map[string]any)
		return fmt.Sprintf("Ray(origin (%s), direction (%s))", numbers(r["origin"]), numbers(r["direction"]))
	case "Region3":
		r, _ := m["value"].(map[string]any)
		center, _ := r["cframe"].([]any)
		if len(center) > 3 {
			center = center[:3]
		}
		return fmt.Sprintf("Region3(center (%s), size (%s))", numbers(center), numbers(r["size"]))
	case "Faces", "Axes":
		list, _ := m["value"].([]any)
		parts := make([]string, len(list))
		for i, x := range list {
			parts[i] = fmt.Sprint(x)
		}
		return fmt.Sprintf("%s(%s)", typ, strings.Join(parts, ", "))
	case "DateTime":
		return fmt.Sprintf("DateTime(%v)", m["value"])
	case "Content":
		switch m["sourceType"] {
		case "Uri":
			return fmt.Sprintf("Content(%v)", m["uri"])
		case "Object":
			return fmt.Sprintf("Content(%s)", FormatValue(m["object"]))
		}
		return fmt.Sprintf("Content(%v)", m["sourceType"])
	case "TweenInfo":
		t, _ := m["value"].(map[string]any)
		return fmt.Sprintf("TweenInfo(%ss, %v, %v, repeat %s, reverses %s, delay %ss)",
			jsonText(t["time"]), t["easingStyle"], t["easingDirection"], jsonText(t["repeatCount"]), jsonText(t["reverses"]), jsonText(t["delayTime"]))
	}
	if list, ok := m["value"].([]any); ok {
		return fmt.Sprintf("%s(%s)", typ, numbers(list))
	}
	return fmt.Sprintf("%s(%s)", typ, jsonText(m["value"]))
}

// numbers writes a JSON array's items separated by ", ".
func numbers(v any) string {
	list, _ := v.([]any)
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = jsonText(x)
	}
	return strings.Join(parts, ", ")
}

func jsonText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
