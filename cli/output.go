package cli

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

// lineWriter prints streamed lines as they arrive: print output on stdout,
// and Info lines (an error's stack lines), warnings and errors on stderr;
// or, when the lines are the command's data (followed logs), every line on
// stdout. Info, warnings and errors are coloured on a terminal. With --json, every line is one JSON object on stdout. Stdout
// is buffered and flushed once the stream pauses (or before anything goes
// to stderr), so a flood of lines costs few writes; flush must be called
// when the stream ends.
func lineWriter(stdio IO, asJSON, data bool) (write func(commands.Line), flush func()) {
	out := newLazyFlusher(stdio.Out)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	outColour, errColour := IsTerminal(stdio.Out), IsTerminal(stdio.Err)
	var mu sync.Mutex
	write = func(l commands.Line) {
		mu.Lock()
		defer mu.Unlock()
		if asJSON {
			_ = enc.Encode(l.Located())
			return
		}
		text := commands.RenderLine(l)
		switch {
		case l.Level != "Warning" && l.Level != "Error" && l.Level != "Info":
			_, _ = io.WriteString(out, text)
		case data:
			_, _ = io.WriteString(out, coloured(text, l.Level, outColour))
		default:
			out.Flush()
			_, _ = io.WriteString(stdio.Err, coloured(text, l.Level, errColour))
		}
	}
	return write, out.Flush
}

// coloured paints an info, warning or error line (ending in a newline)
// blue, yellow or red when on is set.
func coloured(text, level string, on bool) string {
	if !on {
		return text
	}
	code := "33"
	switch level {
	case "Error":
		code = "31"
	case "Info":
		code = "36"
	}
	return "\x1b[" + code + "m" + text[:len(text)-1] + "\x1b[0m\n"
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

// IsTerminal reports whether w is a character device (a terminal): where
// people read, so tables align and lines are coloured.
func IsTerminal(w io.Writer) bool {
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
	if !IsTerminal(w) {
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
