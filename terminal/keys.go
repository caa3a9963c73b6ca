package terminal

import (
	"io"
	"strings"
	"sync"
)

// keyAliases are key sequences the line editor does not know, as the ones
// it does: Home and End as tmux, screen and rxvt send them.
var keyAliases = map[string]string{
	"\x1b[1~": "\x1b[H", "\x1b[7~": "\x1b[H", "\x1bOH": "\x1b[H",
	"\x1b[4~": "\x1b[F", "\x1b[8~": "\x1b[F", "\x1bOF": "\x1b[F",
}

// keyTranslator rewrites keyAliases in a keystroke stream, holding back the
// start of one that a read cut short.
type keyTranslator struct{ held []byte }

func (k *keyTranslator) translate(p []byte) []byte {
	in := append(k.held, p...)
	k.held = nil
	var out []byte
	for i := 0; i < len(in); {
		if in[i] != 0x1b {
			out = append(out, in[i])
			i++
			continue
		}
		rest, matched, partial := string(in[i:]), false, false
		for from, to := range keyAliases {
			switch {
			case strings.HasPrefix(rest, from):
				out, i, matched = append(out, to...), i+len(from), true
			case strings.HasPrefix(from, rest):
				partial = true
			}
			if matched {
				break
			}
		}
		switch {
		case matched:
		case partial:
			k.held = append(k.held, in[i:]...)
			return out
		default:
			out = append(out, in[i])
			i++
		}
	}
	return out
}

// flush returns what translate held back.
func (k *keyTranslator) flush() []byte {
	held := k.held
	k.held = nil
	return held
}

// crlfWriter writes to a terminal in raw mode, where a newline needs a
// carriage return.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, strings.ReplaceAll(string(p), "\n", "\r\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// typeahead is an unbounded keystroke buffer: the reader of stdin never
// blocks on it, so Ctrl-C is seen even while a script runs.
type typeahead struct {
	mu   sync.Mutex
	cond *sync.Cond
	buf  []byte
	err  error
}

func newTypeahead() *typeahead {
	t := &typeahead{}
	t.cond = sync.NewCond(&t.mu)
	return t
}

func (t *typeahead) write(p []byte) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	t.cond.Signal()
	t.mu.Unlock()
}

func (t *typeahead) close(err error) {
	t.mu.Lock()
	t.err = err
	t.cond.Broadcast()
	t.mu.Unlock()
}

func (t *typeahead) Read(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.buf) == 0 && t.err == nil {
		t.cond.Wait()
	}
	if len(t.buf) == 0 {
		return 0, t.err
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}
