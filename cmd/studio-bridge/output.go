package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	json "github.com/segmentio/encoding/json"

	"github.com/studio-bridge/studio-bridge/commands"
)

// failure is a reported failure in Studio (a script error): exit code 1.
type failure string

func (f failure) Error() string { return string(f) }

// lineWriter prints streamed lines as they arrive: print output on stdout,
// warnings and errors on stderr (coloured on a terminal); with --json, every
// line is one JSON object on stdout. Stdout is buffered and flushed once the
// stream pauses (or before anything goes to stderr), so a flood of lines
// costs few writes; flush must be called when the stream ends.
func lineWriter(stdio IO, asJSON bool) (write func(commands.Line), flush func()) {
	out := newLazyFlusher(stdio.Out)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	colour := isTerminal(stdio.Err)
	var mu sync.Mutex
	write = func(l commands.Line) {
		mu.Lock()
		defer mu.Unlock()
		if asJSON {
			_ = enc.Encode(l)
			return
		}
		switch l.Level {
		case "Warning", "Error":
			out.Flush()
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
			_, _ = io.WriteString(out, commands.RenderLine(l))
		}
	}
	return write, out.Flush
}

// lazyFlusher buffers writes and flushes them shortly after the last one,
// or when the buffer fills.
type lazyFlusher struct {
	mu    sync.Mutex
	w     *bufio.Writer
	timer *time.Timer
}

// flushDelay is how long a pause in streamed output waits before it shows.
const flushDelay = 2 * time.Millisecond

func newLazyFlusher(w io.Writer) *lazyFlusher {
	f := &lazyFlusher{w: bufio.NewWriterSize(w, 64<<10)}
	f.timer = time.AfterFunc(time.Hour, f.Flush)
	f.timer.Stop()
	return f
}

func (f *lazyFlusher) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.w.Write(p)
	f.timer.Reset(flushDelay)
	return n, err
}

// Flush writes out what is buffered.
func (f *lazyFlusher) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.timer.Stop()
	_ = f.w.Flush()
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
