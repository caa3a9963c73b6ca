package terminal

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// historySize bounds the terminal history kept across runs.
const historySize = 1000

// history is the terminal's history, kept in studio-bridge's config
// directory (Options.Auth's: STUDIO_BRIDGE_CONFIG_DIR, else
// studio-bridge in the user's config folder) as terminal_history, one
// JSON string per line, so an entry
// may hold newlines). An entry is a whole chunk, however many lines it was
// typed on, or a dot-command. A history that cannot be saved still works in
// memory.
type history struct {
	mu    sync.Mutex
	path  string
	lines []string // oldest first
}

// editorHistory is what the line editor sees of a history: entries as one
// line each (a chunk typed over several is recalled as one line that runs
// the same), and no Add: the editor would record every line typed, parts of
// chunks included, so the terminal records the entries itself.
type editorHistory struct{ h *history }

func (e editorHistory) Add(string)      {}
func (e editorHistory) Len() int        { return e.h.Len() }
func (e editorHistory) At(i int) string { return oneLine(e.h.At(i)) }

func loadHistory(dir string) *history {
	h := &history{}
	if dir == "" {
		return h
	}
	h.path = filepath.Join(dir, "terminal_history")
	f, err := os.Open(h.path)
	if err != nil {
		return h
	}
	defer func() { _ = f.Close() }() // read only: its Close has nothing to lose
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line string
		if json.Unmarshal(sc.Bytes(), &line) == nil {
			h.lines = append(h.lines, line)
		}
	}
	if len(h.lines) > historySize {
		h.lines = h.lines[len(h.lines)-historySize:]
	}
	return h
}

// Add records an entry and appends it to the history file. The entry is
// kept in memory even when the file cannot be written, which the error
// reports.
func (h *history) Add(line string) error {
	if strings.TrimSpace(line) == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.lines); n > 0 && h.lines[n-1] == line {
		return nil
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > historySize {
		h.lines = h.lines[1:]
	}
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(line)
	if err == nil {
		_, err = f.Write(append(raw, '\n'))
	}
	if cerr := f.Close(); err == nil {
		err = cerr // a failed Close of a written file can lose the entry
	}
	return err
}

// Len is the number of entries.
func (h *history) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lines)
}

// At returns an entry: 0 is the newest.
func (h *history) At(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lines[len(h.lines)-1-i]
}
