package commands

import (
	"fmt"
	"reflect"
	"strings"
)

// Arg describes one field of a command's argument struct, read from its tags:
//
//	Depth int `arg:"depth" short:"d" usage:"child levels to include" default:"0"`
//	Path string `arg:"path" positional:"true" required:"true" usage:"instance path"`
type Arg struct {
	Name       string
	Short      string
	Usage      string
	Default    string
	Required   bool
	Positional bool
	Kind       reflect.Kind // Bool, String, Int, Int64, Slice (of string)
	Index      int
}

// Fields lists the arguments of a command's Args struct. It panics on a
// struct it cannot describe: that is a programming error caught by tests.
func Fields(args any) []Arg {
	if args == nil {
		return nil
	}
	t := reflect.TypeOf(args)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("commands: Args must be a pointer to a struct, got %s", t))
	}
	t = t.Elem()
	var out []Arg
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("arg")
		if name == "" {
			continue
		}
		a := Arg{
			Name:       name,
			Short:      f.Tag.Get("short"),
			Usage:      f.Tag.Get("usage"),
			Default:    f.Tag.Get("default"),
			Required:   f.Tag.Get("required") == "true",
			Positional: f.Tag.Get("positional") == "true",
			Kind:       f.Type.Kind(),
			Index:      i,
		}
		switch a.Kind {
		case reflect.Bool, reflect.String, reflect.Int, reflect.Int64:
		case reflect.Slice:
			if f.Type.Elem().Kind() != reflect.String {
				panic(fmt.Sprintf("commands: %s.%s: only []string slices are supported", t.Name(), f.Name))
			}
		default:
			panic(fmt.Sprintf("commands: %s.%s: unsupported kind %s", t.Name(), f.Name, a.Kind))
		}
		if a.Usage == "" {
			panic(fmt.Sprintf("commands: %s.%s has no usage tag", t.Name(), f.Name))
		}
		out = append(out, a)
	}
	return out
}

// NewArgs returns a fresh pointer of the command's Args type.
func (d *Definition) NewArgs() any {
	if d.Args == nil {
		return &struct{}{}
	}
	return reflect.New(reflect.TypeOf(d.Args).Elem()).Interface()
}

// Usage renders "name <positional> [flags]" for help and dot-commands.
func (d *Definition) Usage() string {
	var b strings.Builder
	b.WriteString(d.Name)
	for _, a := range Fields(d.Args) {
		if !a.Positional {
			continue
		}
		if a.Required {
			fmt.Fprintf(&b, " <%s>", a.Name)
		} else {
			fmt.Fprintf(&b, " [%s]", a.Name)
		}
	}
	return b.String()
}
