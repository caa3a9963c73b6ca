package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// terminalCommand is the interactive surface: a Luau REPL attached to one
// session, with dot-commands drawn from the registry.
func terminalCommand(stdio IO) *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "attach to session `ID`"},
		&cli.StringFlag{Name: "context", Usage: "attach to this DataModel: edit, server or client"},
		&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for a Studio session to connect"},
	}, globalFlags()...)
	return &cli.Command{
		Name:         "terminal",
		Usage:        "Interactive Luau REPL attached to a Studio session, with dot-commands (.help).",
		Flags:        flags,
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if err := refuseGlobals(c, "it is interactive and runs until you leave it", "json", "keep-alive"); err != nil {
				return err
			}
			log, err := newLogger(global(c, "log-level").String("log-level"), nil, stdio.Err)
			if err != nil {
				return usageErr{err}
			}
			// The terminal runs scripts, so in Play mode it attaches where
			// exec would run one (the server), as the resolver table says.
			target := bridge.Target{SessionID: c.String("session"), DefaultContext: commands.Exec.DefaultContext}
			if target.Context, err = protocol.ParseContext(c.String("context")); err != nil {
				return usageErr{err}
			}
			b, err := joinBridge(c, log)
			if err != nil {
				return err
			}
			defer b.Close()
			r := &repl{ctx: c.Context, conn: b, log: log, timeout: global(c, "timeout").Duration("timeout")}
			return r.run(stdio, target, c.Duration("wait"))
		},
	}
}

// repl is one terminal session.
type repl struct {
	ctx  context.Context
	conn bridge.Conn
	log  *slog.Logger
	// timeout overrides every command's action timeout (--timeout).
	timeout time.Duration

	out      io.Writer // the screen (CRLF-translating in raw mode)
	screen   io.Writer // in raw mode, the terminal itself, past the line editor
	colour   bool
	read     func(prompt string) (string, error)
	hist     *history // in raw mode
	session  protocol.SessionInfo
	attached bool
	// defaultContext is the context .connect picks in Play mode, as at
	// startup: where exec runs scripts.
	defaultContext protocol.Context

	interrupted atomic.Bool
	waiting     atomic.Bool // waiting for a session at startup
	quit        atomic.Bool // Ctrl-D while waiting
	mu          sync.Mutex
	cancelRun   context.CancelFunc // the running exec or command, if any
}

// errExit ends the loop from a dot-command.
var errExit = errors.New("exit")

func (r *repl) run(stdio IO, target bridge.Target, wait time.Duration) error {
	restore := r.setupIO(stdio)
	defer restore()
	r.defaultContext = target.DefaultContext
	fmt.Fprintf(r.out, "studio-bridge %s terminal. Type Luau to run it; .help lists commands; Ctrl-D exits.\n", version)
	if r.start(target, wait) {
		r.endLine()
		return nil
	}
	var chunk []string
	for {
		line, err := r.read(r.prompt(len(chunk) > 0))
		if r.interrupted.Swap(false) {
			chunk = nil // Ctrl-C at the prompt clears the line and any pending chunk
			if err == nil {
				continue
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || r.ctx.Err() != nil {
				r.endLine()
				return r.unfinished(chunk)
			}
			return err
		}
		if len(chunk) == 0 && strings.HasPrefix(strings.TrimSpace(line), ".") {
			r.remember(strings.TrimSpace(line))
			if err := r.dot(strings.TrimSpace(line)); errors.Is(err, errExit) {
				return nil
			}
			continue
		}
		chunk = append(chunk, line)
		src := strings.Join(chunk, "\n")
		if !chunkComplete(src) {
			continue
		}
		chunk = nil
		if strings.TrimSpace(src) != "" {
			r.remember(src)
			r.exec(src)
		}
	}
}

// unfinished ends the terminal at the end of its input: a chunk still
// waiting for more lines is not run. That is said on the screen; from a
// pipe or a file, whose input was cut short, it is an error (exit 1).
func (r *repl) unfinished(chunk []string) error {
	if len(chunk) == 0 {
		return nil
	}
	msg := fmt.Sprintf("the input ended inside an unfinished Luau chunk (%d line%s, from %q), which was not run",
		len(chunk), plural(len(chunk)), strings.TrimSpace(chunk[0]))
	if r.screen == nil {
		return errors.New(msg)
	}
	r.printColoured("33", strings.ToUpper(msg[:1])+msg[1:]+".")
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// endLine leaves the cursor at the start of a fresh line for the shell. In
// raw mode it writes past the line editor, which would draw its prompt
// again after anything written through it.
func (r *repl) endLine() {
	if r.screen != nil {
		r.out = crlfWriter{r.screen}
	}
	fmt.Fprintln(r.out)
}

// remember records an entry in the history (in raw mode).
func (r *repl) remember(entry string) {
	if r.hist != nil {
		r.hist.Add(entry)
	}
}

// setupIO puts a real terminal in raw mode with line editing and history;
// anything else (a pipe, a file) is read line by line.
func (r *repl) setupIO(stdio IO) (restore func()) {
	in, inOK := stdio.In.(*os.File)
	out, outOK := stdio.Out.(*os.File)
	if inOK && outOK && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd())) {
		if old, err := term.MakeRaw(int(in.Fd())); err == nil {
			ta := newTypeahead()
			go r.pump(in, ta)
			t := term.NewTerminal(struct {
				io.Reader
				io.Writer
			}{ta, out}, "")
			r.hist = loadHistory()
			t.History = editorHistory{r.hist}
			r.screen = out
			if w, h, err := term.GetSize(int(out.Fd())); err == nil {
				_ = t.SetSize(w, h)
			}
			r.out, r.colour = t, true
			r.read = func(prompt string) (string, error) {
				t.SetPrompt(prompt)
				return t.ReadLine()
			}
			return func() { _ = term.Restore(int(in.Fd()), old) }
		}
	}
	br := bufio.NewReader(stdio.In)
	r.out = stdio.Out
	r.read = func(prompt string) (string, error) {
		fmt.Fprint(r.out, prompt)
		line, err := br.ReadString('\n')
		if err != nil && line != "" {
			err = nil
		}
		return strings.TrimRight(line, "\r\n"), err
	}
	return func() {}
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

func (r *repl) prompt(continued bool) string {
	p := "studio-bridge> "
	if r.attached {
		p = fmt.Sprintf("%s [%s]> ", r.session.PlaceName, r.session.Context)
	}
	if continued {
		return strings.Repeat(" ", max(len(p)-5, 0)) + "...> "
	}
	return p
}

func (r *repl) exec(src string) {
	if !r.attached {
		fmt.Fprintln(r.out, "Not attached to a session: .sessions lists them, .connect <id> attaches.")
		return
	}
	r.runCommand(commands.Exec, &commands.ExecArgs{Script: src})
}

// runCommand runs a registry command against the attached session and
// prints its result inline.
func (r *repl) runCommand(d *commands.Definition, args any) {
	if d.NeedsSession && !r.attached {
		fmt.Fprintln(r.out, "Not attached to a session: .sessions lists them, .connect <id> attaches.")
		return
	}
	ctx, done := r.running()
	defer done()
	timeout := d.Timeout
	if r.timeout > 0 {
		timeout = r.timeout
	}
	call := func() (*commands.Result, error) {
		env := &commands.Env{Command: d, Bridge: r.conn, Session: r.session, Timeout: timeout, Log: r.log, Aligned: true,
			Stdout: r.out, Stderr: r.out, Output: r.printLine}
		return d.Run(ctx, env, args)
	}
	res, err := call()
	if err != nil && d.NeedsSession && protocol.CodeOf(err) == protocol.CodeSessionNotFound && ctx.Err() == nil {
		// The host no longer knows the session, so the request reached no
		// plugin and running it again is safe.
		if !r.reattach(ctx) {
			return
		}
		res, err = call()
	}
	if err != nil {
		r.printError(err)
		return
	}
	if res == nil {
		// The command printed as it went (logs --follow) and has ended.
		if ctx.Err() != nil && r.ctx.Err() == nil {
			r.printColoured("33", "stopped")
		}
		return
	}
	fmt.Fprint(r.out, res.People())
	for _, remark := range []string{res.Unavailable, res.Note} {
		if remark != "" {
			fmt.Fprintln(r.out, remark)
		}
	}
	if res.Failure != "" {
		r.printColoured("31", res.Failure)
	}
}

func (r *repl) printLine(l commands.Line) {
	text := strings.TrimSuffix(commands.RenderLine(l), "\n")
	switch l.Level {
	case "Warning":
		r.printColoured("33", text)
	case "Error":
		r.printColoured("31", text)
	default:
		fmt.Fprintln(r.out, text)
	}
}

func (r *repl) printError(err error) {
	if protocol.CodeOf(err) == protocol.CodeCancelled {
		r.printColoured("33", "cancelled")
		return
	}
	r.printColoured("31", err.Error())
	if hint := commands.Hint(err); hint != "" {
		fmt.Fprintln(r.out, "  "+hint)
	}
	var re *bridge.ResolveError
	var ce sessionChoiceError
	switch {
	case errors.As(err, &re) && len(re.Sessions) > 0:
		fmt.Fprint(r.out, commands.RenderSessions(re.Sessions, time.Now(), true))
	case errors.As(err, &ce):
		fmt.Fprint(r.out, commands.RenderSessions(ce.sessions, time.Now(), true))
	}
}

func (r *repl) printColoured(code, text string) {
	if r.colour {
		text = "\x1b[" + code + "m" + text + "\x1b[0m"
	}
	fmt.Fprintln(r.out, text)
}

// builtins are the dot-commands that belong to the terminal itself; every
// other dot-command is a registry command.
var builtins = []struct{ name, usage, summary string }{
	{"help", ".help", "list the dot-commands"},
	{"exit", ".exit", "leave the terminal (or Ctrl-D)"},
	{"clear", ".clear", "clear the screen"},
	{"run", ".run <file>", "run a Luau file in the attached session"},
	{"connect", ".connect [id]", "attach to a session: a session id, an instance id or a unique prefix (default: the only Studio instance)"},
	{"disconnect", ".disconnect", "detach from the session"},
	{"context", ".context <edit|server|client>", "attach to another DataModel of the same Studio window"},
}

// dotCommands are the registry commands the terminal offers.
func dotCommands() []*commands.Definition {
	var out []*commands.Definition
	for _, d := range commands.All {
		if !d.LongRunning && !d.Hidden {
			out = append(out, d)
		}
	}
	return out
}

func (r *repl) dot(line string) error {
	words, err := splitWords(line)
	if err != nil {
		r.printError(err)
		return nil
	}
	name, rest := strings.TrimPrefix(words[0], "."), words[1:]
	switch name {
	case "help":
		r.help()
	case "exit", "quit":
		return errExit
	case "clear":
		fmt.Fprint(r.out, "\x1b[H\x1b[2J")
	case "run":
		if len(rest) != 1 {
			fmt.Fprintln(r.out, "usage: .run <file>")
			return nil
		}
		src, err := commands.LoadScript(rest[0], strings.NewReader(""))
		if err != nil {
			r.printError(err)
			return nil
		}
		r.exec(src)
	case "connect":
		r.connect(rest)
	case "disconnect":
		r.attached = false
		fmt.Fprintln(r.out, "Detached.")
	case "context":
		r.switchContext(rest)
	default:
		d := commands.Lookup(name)
		if d == nil || d.LongRunning || d.Hidden {
			fmt.Fprintf(r.out, "Unknown command .%s; .help lists them.\n", name)
			return nil
		}
		args, err := dotArgs(d, rest)
		if err == nil && d.PrepareCLI != nil {
			err = d.PrepareCLI(args, strings.NewReader(""))
		}
		if err != nil {
			r.printError(err)
			return nil
		}
		r.runCommand(d, args)
	}
	return nil
}

func (r *repl) help() {
	type row struct{ usage, summary string }
	var rows []row
	for _, b := range builtins {
		rows = append(rows, row{b.usage, b.summary})
	}
	for _, d := range dotCommands() {
		rows = append(rows, row{"." + d.Usage(), d.Summary})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].usage < rows[j].usage })
	width := 0
	for _, x := range rows {
		width = max(width, len(x.usage))
	}
	fmt.Fprintln(r.out, "Type Luau and press Enter to run it (an unfinished chunk continues on the next line).")
	for _, x := range rows {
		fmt.Fprintf(r.out, "  %-*s  %s\n", width, x.usage, x.summary)
	}
	fmt.Fprintln(r.out, "Ctrl-C cancels a running script or clears the line; Ctrl-D exits.")
}
