package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/studio-bridge/studio-bridge/commands"
)

// failure is a reported failure in Studio (a script error): exit code 1.
type failure string

func (f failure) Error() string { return string(f) }

// lineWriter prints streamed lines as they arrive: print output on stdout,
// warnings and errors on stderr (coloured on a terminal); with --json, every
// line is one JSON object on stdout.
func lineWriter(stdio IO, asJSON bool) func(commands.Line) {
	var mu sync.Mutex
	enc := json.NewEncoder(stdio.Out)
	colour := isTerminal(stdio.Err)
	return func(l commands.Line) {
		mu.Lock()
		defer mu.Unlock()
		if asJSON {
			_ = enc.Encode(l)
			return
		}
		switch l.Level {
		case "Warning", "Error":
			text := commands.RenderLine(l)
			if colour {
				code := "33"
				if l.Level == "Error" {
					code = "31"
				}
				text = fmt.Sprintf("\x1b[%sm%s\x1b[0m", code, text[:len(text)-1]) + "\n"
			}
			_, _ = io.WriteString(stdio.Err, text)
		default:
			_, _ = io.WriteString(stdio.Out, commands.RenderLine(l))
		}
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// statusLine shows transient progress on a terminal's stderr, one line
// rewritten in place; clear removes it. Elsewhere both do nothing.
func statusLine(w io.Writer) (show func(string), clear func()) {
	if !isTerminal(w) {
		return func(string) {}, func() {}
	}
	var mu sync.Mutex
	shown := false
	show = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "\r\x1b[K\x1b[2m%s\x1b[0m", s)
		shown = true
	}
	clear = func() {
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprint(w, "\r\x1b[K")
			shown = false
		}
	}
	return show, clear
}
