package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Options configure one terminal session.
type Options struct {
	// Conn is the bridge connection the terminal's commands go through.
	Conn bridge.Conn
	// Log receives diagnostics (stderr, at the level the user chose).
	Log *slog.Logger
	// Target is the session to attach to at start-up; its DefaultContext
	// is also what .connect picks in Play mode.
	Target bridge.Target
	// Wait is how long start-up waits for a matching session (--wait).
	Wait time.Duration
	// Timeout, if set, overrides every command's action timeout (--timeout).
	Timeout time.Duration
	// Version is shown in the banner.
	Version string
	// Project is --project: the project root test's paths stay in.
	Project string
	// Auth is where the user's tokens are (the CLI resolves it from the
	// environment): the history lives in its config directory, and
	// .token, .install-plugin and .doctor read the tokens through it.
	Auth authtoken.Settings
	// In, Out and Err are the process's streams. The terminal edits lines
	// in raw mode only when In and Out are both terminals (*os.File).
	In       io.Reader
	Out, Err io.Writer
}

// Run runs the terminal until .exit, Ctrl-D, the end of its input or the
// cancellation of ctx. Input that ends inside an unfinished chunk is an
// error when it came from a pipe or a file (the script was cut short).
func Run(ctx context.Context, opts Options) error {
	r := &repl{ctx: ctx, conn: opts.Conn, log: opts.Log, timeout: opts.Timeout, defaultContext: opts.Target.DefaultContext, project: opts.Project, auth: opts.Auth}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	restore := r.setupIO(opts.In, opts.Out, opts.Err)
	defer restore()
	fmt.Fprintf(r.msg, "studio-bridge %s terminal. Type Luau to run it; .help lists commands; Ctrl-D exits.\n", opts.Version)
	if r.start(opts.Target, opts.Wait) {
		r.endLine()
		return nil
	}
	// attaching is no entry of the input: an entry that needs a session
	// fails (and counts) by itself
	r.failures = 0
	return r.loop()
}

// repl is one terminal session.
type repl struct {
	// project is --project, "" for STUDIO_BRIDGE_PROJECT or the working
	// directory.
	project string
	// auth is where the user's tokens are (Options.Auth).
	auth authtoken.Settings
	ctx  context.Context
	conn bridge.Conn
	log  *slog.Logger
	// timeout overrides every command's action timeout (--timeout).
	timeout time.Duration

	// out receives results: what scripts print and what commands return.
	// msg receives what is said to the person: notices, errors, warnings.
	// In raw mode both are the line editor (which translates newlines);
	// otherwise stdout and stderr.
	out, msg io.Writer
	// prompts receives the prompts of line-by-line mode (the line editor
	// draws its own): stderr when a person types, else io.Discard.
	prompts io.Writer
	screen  io.Writer // in raw mode, the terminal itself, past the line editor
	colour  bool
	aligned bool // tables are read on a terminal: align them with spaces
	read    func(prompt string) (string, error)
	hist    *history // in raw mode
	// histFailed is set once saving the history failed (and was logged).
	histFailed bool
	// failures counts what failed (a script error, a refused command):
	// piped input with failures exits 1.
	failures int
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

// loop is the read-eval loop: read an entry, run it as a dot-command or
// as Luau, until .exit or the end of the input.
func (r *repl) loop() error {
	for {
		entry, err := r.readEntry()
		if errors.Is(err, io.EOF) {
			return r.outcome()
		}
		if err != nil {
			return err
		}
		r.remember(entry)
		if isDotCommand(entry) {
			if errors.Is(r.dot(entry), errExit) {
				return r.outcome()
			}
			continue
		}
		r.exec(entry)
	}
}

// outcome is how the terminal ends: from a pipe or a file, as a script
// does, with an error (exit 1) when any entry failed; a person at a
// terminal has seen each failure and leaves with none.
func (r *repl) outcome() error {
	if r.screen != nil || r.failures == 0 {
		return nil
	}
	return fmt.Errorf("the input had %d failure%s (see above)", r.failures, plural(r.failures))
}

// isDotCommand reports whether an entry is a dot-command line.
func isDotCommand(entry string) bool { return strings.HasPrefix(entry, ".") }

// readEntry reads lines until they make an entry: a dot-command (a line
// starting with a dot, when no chunk is pending) or a complete Luau chunk,
// typed over as many lines as it needs. Ctrl-C drops the lines read so far.
// At the end of the input it returns io.EOF, or the error unfinished gives
// for a chunk cut short.
func (r *repl) readEntry() (string, error) {
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
			if !errors.Is(err, io.EOF) && r.ctx.Err() == nil {
				return "", err
			}
			r.endLine()
			if err := r.unfinished(chunk); err != nil {
				return "", err
			}
			return "", io.EOF
		}
		if len(chunk) == 0 && isDotCommand(strings.TrimSpace(line)) {
			return strings.TrimSpace(line), nil
		}
		chunk = append(chunk, line)
		src := strings.Join(chunk, "\n")
		if !chunkComplete(src) {
			continue
		}
		if strings.TrimSpace(src) != "" {
			return src, nil
		}
		chunk = nil
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

// remember records an entry in the history (in raw mode). The first entry
// the history file cannot take is logged; the history still works in
// memory.
func (r *repl) remember(entry string) {
	if r.hist == nil {
		return
	}
	if err := r.hist.Add(entry); err != nil && !r.histFailed {
		r.histFailed = true
		r.log.Warn("the terminal history is not saved", "err", err)
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
