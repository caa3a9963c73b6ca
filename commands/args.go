package commands

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// Arg describes one field of a command's argument struct. Everything about
// an argument is said once, in its tags:
//
//	Count int `json:"count" short:"n" default:"50" usage:"how many entries"`
//	Direction string `json:"direction" enum:"head,tail" default:"tail" switch:"true" usage:"…" desc:"…"`
//	Path string `json:"path" pos:"true" required:"true" usage:"instance path"`
//	Follow bool `json:"follow" mcp:"-" usage:"stream new lines"`
//
// usage is help for people; desc, when given, is the longer description
// agents read in the MCP schema. json is the name in MCP input and --json
// output; the CLI flag is its
// kebab-case form unless flag says otherwise. pos makes it a positional CLI
// argument; word lets a terminal dot-command take it as a bare word
// (.logs 20). switch turns an enum into one boolean flag per value (--head,
// --tail). mcp:"-" and cli:"-" keep an argument off one surface.
type Arg struct {
	Name       string   // JSON / MCP name
	Flag       string   // CLI flag name (or positional placeholder)
	Short      string   // one-letter CLI alias
	Usage      string   // short help for people (CLI, terminal)
	Desc       string   // description for agents (MCP schema); defaults to Usage
	Switches   []string // help for each switch flag, in Enum order
	Default    string   // default, as text
	Enum       []string // allowed values
	Required   bool     // required everywhere
	MCPOnly    bool     // required in MCP input only (required:"mcp")
	Positional bool
	Switch     bool
	Word       bool // may be given as a bare word to a terminal dot-command
	NoMCP      bool
	NoCLI      bool
	// JSON marks an MCP-only argument of any JSON shape (cli:"-" is
	// required): a list of objects, an object. MCP's schema describes Type
	// and its input is decoded into the field as it is.
	JSON  bool
	Type  reflect.Type
	Kind  reflect.Kind // Bool, String, Int, Slice (of string); any with JSON
	Index []int        // field index path in the struct (through embedded structs)
}

// Value is the argument's field in an Args pointer.
func (a Arg) Value(args any) reflect.Value {
	return reflect.ValueOf(args).Elem().FieldByIndex(a.Index)
}

// Fields lists the arguments of a command's Args struct; the list is shared,
// and callers must not modify it. It panics on a struct it cannot describe:
// a programming error that the registry test catches.
func Fields(args any) []Arg {
	if args == nil {
		return nil
	}
	t := reflect.TypeOf(args)
	// Each surface asks several times per command, and reading the tags is
	// most of the time a CLI process spends building its commands.
	if out, ok := fieldsOf.Load(t); ok {
		return out.([]Arg)
	}
	out := fields(t)
	fieldsOf.Store(t, out)
	return out
}

var fieldsOf sync.Map // reflect.Type → []Arg

func fields(t reflect.Type) []Arg {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("commands: Args must be a pointer to a struct, got %s", t))
	}
	return structFields(t.Elem(), nil)
}

// structFields describes the tagged fields of struct t, whose index path in
// the Args struct is at; an embedded struct without a json name (a group of
// arguments several commands share) adds its own fields in its place.
func structFields(t reflect.Type, at []int) []Arg {
	var out []Arg
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		index := append(append([]int(nil), at...), i)
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, structFields(f.Type, index)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		a := Arg{
			Name:       name,
			Flag:       f.Tag.Get("flag"),
			Short:      f.Tag.Get("short"),
			Usage:      f.Tag.Get("usage"),
			Desc:       f.Tag.Get("desc"),
			Default:    f.Tag.Get("default"),
			Required:   f.Tag.Get("required") == "true",
			MCPOnly:    f.Tag.Get("required") == "mcp",
			Positional: f.Tag.Get("pos") == "true",
			Switch:     f.Tag.Get("switch") == "true",
			Word:       f.Tag.Get("word") == "true",
			NoMCP:      f.Tag.Get("mcp") == "-",
			NoCLI:      f.Tag.Get("cli") == "-",
			Kind:       f.Type.Kind(),
			Type:       f.Type,
			Index:      index,
		}
		if a.Flag == "" {
			a.Flag = kebab(name)
		}
		if e := f.Tag.Get("enum"); e != "" {
			a.Enum = strings.Split(e, ",")
		}
		if a.Desc == "" {
			a.Desc = a.Usage
		}
		if sw := f.Tag.Get("switches"); sw != "" {
			a.Switches = strings.Split(sw, ",")
		}
		switch a.Kind {
		case reflect.Bool, reflect.String, reflect.Int:
		case reflect.Slice, reflect.Map, reflect.Struct:
			if a.NoCLI && (a.Kind != reflect.Slice || f.Type.Elem().Kind() != reflect.String) {
				a.JSON = true // MCP only: decoded as JSON (script edit's edits)
			} else if a.Kind != reflect.Slice || f.Type.Elem().Kind() != reflect.String {
				panic(fmt.Sprintf("commands: %s.%s: only []string slices are supported", t.Name(), f.Name))
			}
		default:
			panic(fmt.Sprintf("commands: %s.%s: unsupported kind %s", t.Name(), f.Name, a.Kind))
		}
		if a.Usage == "" {
			panic(fmt.Sprintf("commands: %s.%s has no usage tag", t.Name(), f.Name))
		}
		if a.Switch && (a.Kind != reflect.String || len(a.Enum) == 0 || len(a.Switches) != len(a.Enum)) {
			panic(fmt.Sprintf("commands: %s.%s: switch needs a string enum and one switches help per value", t.Name(), f.Name))
		}
		out = append(out, a)
	}
	return out
}

func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NewArgs returns a fresh pointer of the command's Args type with every
// default applied.
func (d *Definition) NewArgs() any {
	if d.Args == nil {
		return &struct{}{}
	}
	ptr := reflect.New(reflect.TypeOf(d.Args).Elem())
	for _, a := range Fields(d.Args) {
		if a.Default == "" {
			continue
		}
		if err := setText(ptr.Elem().FieldByIndex(a.Index), a, a.Default); err != nil {
			panic(fmt.Sprintf("commands: %s: default of %s: %v", d.Name, a.Name, err))
		}
	}
	return ptr.Interface()
}

// setText sets a field from its textual form (a flag value, a default, a
// dot-command word).
func setText(f reflect.Value, a Arg, text string) error {
	switch a.Kind {
	case reflect.Bool:
		switch text {
		case "true", "1", "yes", "on":
			f.SetBool(true)
		case "false", "0", "no", "off":
			f.SetBool(false)
		default:
			return fmt.Errorf("want true or false, got %q", text)
		}
	case reflect.Int:
		var n int
		if _, err := fmt.Sscan(text, &n); err != nil {
			return fmt.Errorf("want a whole number, got %q", text)
		}
		f.SetInt(int64(n))
	case reflect.Slice:
		var parts []string
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		f.Set(reflect.ValueOf(parts))
	default:
		f.SetString(text)
	}
	return nil
}

// Validate checks enums and required arguments of a filled Args value, then
// the command's own Check.
func (d *Definition) Validate(args any) error {
	v := reflect.ValueOf(args).Elem()
	for _, a := range Fields(d.Args) {
		f := v.FieldByIndex(a.Index)
		if a.Required && f.IsZero() {
			return Usagef("%s needs %s%s", d.Path(), a.Name, UsageOf(d.Path()))
		}
		if len(a.Enum) == 0 {
			continue
		}
		var values []string
		switch a.Kind {
		case reflect.String:
			if s := f.String(); s != "" {
				values = []string{s}
			}
		case reflect.Slice:
			values = f.Interface().([]string)
		}
		for _, val := range values {
			if !contains(a.Enum, val) {
				return UsageError{fmt.Errorf("%s: %s must be one of %s, got %q", d.Name, a.Name, strings.Join(a.Enum, ", "), val)}
			}
		}
	}
	if d.check != nil {
		return d.check(args)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Slots lists the arguments that bare words fill, in order: the positional
// ones, then those tagged word.
func (d *Definition) Slots() []Arg {
	var pos, words []Arg
	for _, a := range Fields(d.Args) {
		switch {
		case a.NoCLI:
		case a.Positional:
			pos = append(pos, a)
		case a.Word:
			words = append(words, a)
		}
	}
	return append(pos, words...)
}

// Usage renders "name <required> [optional]" for help and dot-commands.
func (d *Definition) Usage() string {
	var b strings.Builder
	b.WriteString(d.Path())
	for _, a := range d.Slots() {
		name := a.Flag
		if len(a.Enum) > 0 { // the words it takes: play <start|stop|status>
			name = strings.Join(a.Enum, "|")
		}
		switch {
		case a.Variadic():
			fmt.Fprintf(&b, " [%s...]", name)
		case a.Required:
			fmt.Fprintf(&b, " <%s>", name)
		default:
			fmt.Fprintf(&b, " [%s]", name)
		}
	}
	return b.String()
}

// Variadic reports a positional list argument: it takes every remaining
// word (test's paths).
func (a Arg) Variadic() bool { return a.Positional && a.Kind == reflect.Slice }

// Append adds one word to a variadic argument as it is (no comma
// splitting: a path may hold a comma); other arguments are Set.
func Append(args any, a Arg, text string) error {
	if !a.Variadic() {
		return Set(args, a, text)
	}
	f := a.Value(args)
	f.Set(reflect.Append(f, reflect.ValueOf(text)))
	return nil
}

// Set assigns one argument of an Args pointer from text, with an error that
// names the argument.
func Set(args any, a Arg, text string) error {
	if err := setText(a.Value(args), a, text); err != nil {
		return UsageError{fmt.Errorf("--%s: %v", a.Flag, err)}
	}
	return nil
}
