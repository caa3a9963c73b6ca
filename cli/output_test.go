package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/studio-bridge/studio-bridge/commands"
)

// TestLineWriterRoutes: an exec's info lines (stack traces), warnings and
// errors go to stderr, but
// followed log lines are the command's data and all go to stdout, so
// `logs --follow > file` keeps them; --json puts every line on stdout.
func TestLineWriterRoutes(t *testing.T) {
	lines := []commands.Line{{Level: "Print", Body: "p"}, {Level: "Warning", Body: "w"}, {Level: "Error", Body: "e"}, {Level: "Info", Body: "i"}}
	tests := []struct {
		name           string
		asJSON, data   bool
		stdout, stderr string
	}{
		{"exec output", false, false, "p\n", "[Warning] w\n[Error] e\n[Info] i\n"},
		{"followed logs", false, true, "p\n[Warning] w\n[Error] e\n[Info] i\n", ""},
		{"exec output as JSON", true, false,
			`{"level":"Print","body":"p"}` + "\n" + `{"level":"Warning","body":"w"}` + "\n" + `{"level":"Error","body":"e"}` + "\n" + `{"level":"Info","body":"i"}` + "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			write, flush := lineWriter(IO{Out: &out, Err: &errOut}, tt.asJSON, tt.data)
			for _, l := range lines {
				write(l)
			}
			flush()
			if out.String() != tt.stdout || errOut.String() != tt.stderr {
				t.Errorf("stdout %q, stderr %q; want %q, %q", out.String(), errOut.String(), tt.stdout, tt.stderr)
			}
		})
	}
}

// TestLoggerLevels: without --log-level, serve logs at info and the rest at
// warn; an explicit level wins, warn included.
func TestLoggerLevels(t *testing.T) {
	tests := []struct {
		level string
		d     *commands.Definition
		want  slog.Level
	}{
		{"", commands.Serve, slog.LevelInfo},
		{"", commands.Exec, slog.LevelWarn},
		{"", nil, slog.LevelWarn},
		{"warn", commands.Serve, slog.LevelWarn},
		{"debug", commands.Exec, slog.LevelDebug},
		{"ERROR", nil, slog.LevelError},
	}
	for _, tt := range tests {
		log, err := newLogger(tt.level, tt.d, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if !log.Enabled(context.Background(), tt.want) || log.Enabled(context.Background(), tt.want-1) {
			t.Errorf("level %q for %v: not %s", tt.level, tt.d != nil && tt.d.LongRunning, tt.want)
		}
	}
	if _, err := newLogger("loud", nil, io.Discard); err == nil {
		t.Error("--log-level loud was accepted")
	}
}
