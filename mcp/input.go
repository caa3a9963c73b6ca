package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// input is a decoded tool call.
type input struct {
	args    any
	target  bridge.Target
	maxOut  int
	timeout time.Duration
}

// decodeInput checks tool arguments against the command's arguments (types,
// enums, required, no unknown properties) and fills its Args struct;
// commands.Invoke validates the rest.
func decodeInput(d *commands.Definition, raw json.RawMessage) (input, error) {
	in := input{maxOut: DefaultMaxOutput}
	var err error
	in.args, in.target, err = decodeArgs(d, raw, &in)
	return in, err
}

func decodeArgs(d *commands.Definition, raw json.RawMessage, dec *input) (any, bridge.Target, error) {
	target := bridge.Target{}
	in := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, target, errors.New("arguments must be a JSON object")
		}
	}
	args := d.NewArgs()
	fields := map[string]commands.Arg{}
	for _, a := range commands.Fields(d.Args) {
		if !a.NoMCP {
			fields[a.Name] = a
		}
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := in[k]
		switch {
		case d.NeedsSession && k == "sessionId":
			if err := json.Unmarshal(v, &target.SessionID); err != nil {
				return nil, target, fmt.Errorf("sessionId must be a string")
			}
		case d.LargeOutput && k == "maxOutputBytes":
			var n float64
			if err := json.Unmarshal(v, &n); err != nil || n != float64(int(n)) || n < MinMaxOutput || n > MaxMaxOutput {
				return nil, target, fmt.Errorf("maxOutputBytes must be a whole number from %d to %d", MinMaxOutput, MaxMaxOutput)
			}
			dec.maxOut = int(n)
		case d.MaxTimeout > 0 && k == "timeout":
			var n float64
			if err := json.Unmarshal(v, &n); err != nil || n != float64(int(n)) || n < 1 || n > d.MaxTimeout.Seconds() {
				return nil, target, fmt.Errorf("timeout must be a whole number of seconds from 1 to %d", int(d.MaxTimeout.Seconds()))
			}
			dec.timeout = time.Duration(n) * time.Second
		case d.NeedsSession && k == "context":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, target, fmt.Errorf("context must be a string")
			}
			c, err := protocol.ParseContext(s)
			if err != nil || c == "" {
				return nil, target, fmt.Errorf("context must be one of edit, client, server (got %q)", s)
			}
			target.Context = c
		default:
			a, ok := fields[k]
			if !ok {
				return nil, target, fmt.Errorf("unknown property %q; %s takes %s", k, ToolName(d), propertyList(d))
			}
			if err := setJSON(args, a, v); err != nil {
				return nil, target, err
			}
		}
	}
	for _, a := range fields {
		if _, ok := in[a.Name]; !ok && (a.Required || a.MCPOnly) {
			return nil, target, fmt.Errorf("missing required property %q", a.Name)
		}
	}
	return args, target, nil
}

func setJSON(args any, a commands.Arg, v json.RawMessage) error {
	f := a.Value(args)
	if a.JSON {
		ptr := reflect.New(a.Type)
		if err := json.Unmarshal(v, ptr.Interface()); err != nil {
			return fmt.Errorf("%s: %v", a.Name, err)
		}
		f.Set(ptr.Elem())
		return nil
	}
	switch a.Kind {
	case reflect.Bool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return fmt.Errorf("%s must be a boolean", a.Name)
		}
		f.SetBool(b)
	case reflect.Int:
		var n float64
		if json.Unmarshal(v, &n) != nil || n != float64(int64(n)) {
			return fmt.Errorf("%s must be a whole number", a.Name)
		}
		f.SetInt(int64(n))
	case reflect.Slice:
		var list []string
		if json.Unmarshal(v, &list) != nil {
			return fmt.Errorf("%s must be an array of strings", a.Name)
		}
		f.Set(reflect.ValueOf(list))
	default:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("%s must be a string", a.Name)
		}
		f.SetString(s)
	}
	return nil
}

func propertyList(d *commands.Definition) string {
	var names []string
	if d.NeedsSession {
		names = append(names, "sessionId", "context")
	}
	for _, a := range commands.Fields(d.Args) {
		if !a.NoMCP {
			names = append(names, a.Name)
		}
	}
	if d.LargeOutput {
		names = append(names, "maxOutputBytes")
	}
	if d.MaxTimeout > 0 {
		names = append(names, "timeout")
	}
	if len(names) == 0 {
		return "no properties"
	}
	return strings.Join(names, ", ")
}
