package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Descriptions of the arguments every session-scoped tool gets.
const sessionIDDesc = "Target session: a session ID, a Studio window's instanceId, or a unique prefix of either (at least 4 characters). Optional if only one Studio instance is connected, or if only one has the context you ask for."

func contextDesc(d *commands.Definition) string {
	if d.DefaultContext == protocol.ContextServer {
		return "Target session context. Optional. In Edit mode the edit session is the only one and is used; in Play mode " + d.Name + " (a mutating command) defaults to server. Use edit or client to target other contexts in Play mode."
	}
	return "Target session context. Optional. Defaults to edit. Use server or client to target Play mode contexts."
}

// InputSchema derives a tool's JSON schema from the command's arguments.
func InputSchema(d *commands.Definition) map[string]any {
	props := map[string]any{}
	var required []string
	if d.NeedsSession {
		props["sessionId"] = map[string]any{"type": "string", "description": sessionIDDesc}
		props["context"] = map[string]any{"type": "string", "enum": []string{"edit", "client", "server"}, "description": contextDesc(d)}
	}
	for _, a := range commands.Fields(d.Args) {
		if a.NoMCP {
			continue
		}
		p := map[string]any{"description": a.Desc}
		switch {
		case a.JSON:
			for k, v := range typeSchema(a.Type) {
				p[k] = v
			}
		case a.Kind == reflect.Bool:
			p["type"] = "boolean"
		case a.Kind == reflect.Int:
			p["type"] = "integer"
		case a.Kind == reflect.Slice:
			items := map[string]any{"type": "string"}
			if len(a.Enum) > 0 {
				items["enum"] = a.Enum
			}
			p["type"], p["items"] = "array", items
		default:
			p["type"] = "string"
			if len(a.Enum) > 0 {
				p["enum"] = a.Enum
			}
		}
		if def, ok := defaultValue(a); ok {
			p["default"] = def
		}
		props[a.Name] = p
		if a.Required || a.MCPOnly {
			required = append(required, a.Name)
		}
	}
	if d.MaxTimeout > 0 {
		props["timeout"] = map[string]any{"type": "integer", "minimum": 1, "maximum": int(d.MaxTimeout.Seconds()), "default": int(d.Timeout.Seconds()),
			"description": fmt.Sprintf("Seconds the %s may take before it is abandoned with a timeout error. Default: %d (the server's --timeout, when given, replaces the default); at most %d.",
				strings.ToLower(d.Noun), int(d.Timeout.Seconds()), int(d.MaxTimeout.Seconds()))}
	}
	if d.LargeOutput {
		props["maxOutputBytes"] = map[string]any{"type": "integer", "minimum": MinMaxOutput, "maximum": MaxMaxOutput, "default": DefaultMaxOutput, "description": maxOutputDescFor(d)}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func defaultValue(a commands.Arg) (any, bool) {
	switch a.Kind {
	case reflect.Bool:
		if a.Default == "" {
			return false, !a.Positional
		}
		return a.Default == "true", true
	case reflect.Int:
		if a.Default == "" {
			return nil, false
		}
		n, err := strconv.Atoi(a.Default)
		return n, err == nil
	case reflect.String:
		return a.Default, a.Default != ""
	}
	return nil, false
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// OutputSchema describes the JSON shape of a Go value, following its json
// tags: what a tool's structured content will look like.
func OutputSchema(v any) map[string]any {
	if v == nil {
		return map[string]any{"type": "object"}
	}
	return typeSchema(reflect.TypeOf(v))
}

func typeSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawType:
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object"}
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		addFields(t, props, &required)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

func addFields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addFields(f.Type, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = typeSchema(f.Type)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// ToolOutputSchema is a tool's output schema: its result's, plus for
// capped tools the top-level fields a cut result carries.
func ToolOutputSchema(d *commands.Definition) map[string]any {
	s := OutputSchema(d.Output)
	if props, ok := s["properties"].(map[string]any); ok && d.LargeOutput {
		props["truncated"] = map[string]any{"type": "boolean", "description": "The result was cut to maxOutputBytes (or the plugin cut it)."}
		props["totalBytes"] = map[string]any{"type": "integer", "description": "With truncated: the size of the whole result's JSON."}
	}
	return s
}
