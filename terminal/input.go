package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// setupIO puts a real terminal in raw mode with line editing and history;
// anything else (a pipe, a file) is read line by line, with stdout kept
// for results (see the package doc).
func (r *repl) setupIO(stdin io.Reader, stdout, stderr io.Writer) (restore func()) {
	in, inOK := stdin.(*os.File)
	out, outOK := stdout.(*os.File)
	if inOK && outOK && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd())) {
		if old, err := term.MakeRaw(int(in.Fd())); err == nil {
			ta := newTypeahead()
			go r.pump(in, ta)
			t := term.NewTerminal(struct {
				io.Reader
				io.Writer
			}{ta, out}, "")
			r.hist = loadHistory(r.auth.ConfigDir)
			t.History = editorHistory{r.hist}
			r.screen = out
			_ = t.SetSize(screenSize(term.GetSize(int(out.Fd())))) // fails for no size screenSize returns
			r.out, r.msg, r.prompts, r.colour, r.aligned = t, t, io.Discard, true, true
			r.read = func(prompt string) (string, error) {
				t.SetPrompt(prompt)
				return t.ReadLine()
			}
			return func() { _ = term.Restore(int(in.Fd()), old) } // nothing to do if the terminal is gone
		}
	}
	br := bufio.NewReader(stdin)
	r.out, r.msg, r.aligned = stdout, stderr, isTerminal(stdout)
	// Prompts are for a person typing: on stderr when stdin is a terminal,
	// and nowhere when a pipe or a file feeds the terminal.
	r.prompts = io.Discard
	if inOK && term.IsTerminal(int(in.Fd())) {
		r.prompts = stderr
	}
	r.read = func(prompt string) (string, error) {
		fmt.Fprint(r.prompts, prompt)
		line, err := br.ReadString('\n')
		if err != nil && line != "" {
			err = nil
		}
		return strings.TrimRight(line, "\r\n"), err
	}
	return func() {}
}

// screenSize is the line editor's size: the terminal's, or 80×24 where it
// reports none (a pseudo-terminal nobody sized, e.g. `script` in CI,
// answers 0×0, and a width of 0 would put every character on a line of
// its own).
func screenSize(w, h int, err error) (int, int) {
	if err != nil || w <= 0 {
		w = 80
	}
	if err != nil || h <= 0 {
		h = 24
	}
	return w, h
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// pump copies keystrokes to the line editor. Ctrl-C never reaches it: it
// cancels what is running, or else clears the line (Ctrl-U, Enter). While
// the terminal waits for a session at startup, Ctrl-D ends it.
func (r *repl) pump(in io.Reader, ta *typeahead) {
	buf := make([]byte, 512)
	var keys keyTranslator
	for {
		n, err := in.Read(buf)
		for _, c := range keys.translate(buf[:n]) {
			switch {
			case c == 4 && r.waiting.Load():
				r.quit.Store(true)
				r.cancelRunning()
			case c != 3:
				ta.write([]byte{c})
			case !r.cancelRunning():
				r.interrupted.Store(true)
				ta.write([]byte{21, '\r'})
			}
		}
		if err != nil {
			ta.write(keys.flush())
			ta.close(err)
			return
		}
	}
}

func (r *repl) cancelRunning() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancelRun == nil {
		return false
	}
	r.cancelRun()
	return true
}

// running returns a context for one exec or command that Ctrl-C cancels.
func (r *repl) running() (context.Context, func()) {
	ctx, cancel := context.WithCancel(r.ctx)
	r.mu.Lock()
	r.cancelRun = cancel
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		r.cancelRun = nil
		r.mu.Unlock()
		cancel()
	}
}
