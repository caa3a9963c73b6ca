package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// historySize bounds the terminal history kept across runs.
const historySize = 1000

// history is the terminal's line history, kept in the user config folder
// (studio-bridge/terminal_history, one JSON string per line). It satisfies
// x/term's History. A history that cannot be saved still works in memory.
type history struct {
	mu    sync.Mutex
	path  string
	lines []string // oldest first
}

func loadHistory() *history {
	h := &history{}
	dir, err := os.UserConfigDir()
	if err != nil {
		return h
	}
	h.path = filepath.Join(dir, "studio-bridge", "terminal_history")
	f, err := os.Open(h.path)
	if err != nil {
		return h
	}
	defer f.Close()
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

// Add records a line and appends it to the history file.
func (h *history) Add(line string) {
	if line == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.lines); n > 0 && h.lines[n-1] == line {
		return
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > historySize {
		h.lines = h.lines[1:]
	}
	if h.path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	raw, _ := json.Marshal(line)
	_, _ = f.Write(append(raw, '\n'))
}

// Len implements term.History.
func (h *history) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lines)
}

// At implements term.History: 0 is the newest line.
func (h *history) At(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lines[len(h.lines)-1-i]
}
