package cli

import (
	"context"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

func TestInterspersed(t *testing.T) {
	app := newApp(IO{Out: io.Discard, Err: io.Discard}, new(error))
	tests := []struct{ in, want string }{
		{"sb call state --session X", "sb call --session X -- state"},
		{"sb --port 1 call state -s X {} --json", "sb --port 1 call -s X --json -- state {}"},
		{"sb call --context=server state", "sb call --context=server -- state"},
		{"sb call state -- --not-a-flag", "sb call -- state --not-a-flag"},
		{"sb sessions --json", "sb sessions --json"},
		{"sb call - --timeout 5s", "sb call --timeout 5s -- -"},
		{"sb bogus --x y", "sb bogus --x y"},
		{"sb --json", "sb --json"},
		{"sb test red broken --reporter github --json", "sb test --reporter github --json -- red broken"},
	}
	for _, tt := range tests {
		got := strings.Join(interspersed(app, strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("%q → %q, want %q", tt.in, got, tt.want)
		}
	}
	// Code that starts with a comment is no flag.
	for _, code := range []string{"--!strict\nprint(1)", "--[[note]] print(1)", "--[[note]]print(1)", "-- hi\nreturn 1", "--!native"} {
		got := interspersed(app, []string{"sb", "exec", code, "--json"})
		if want := []string{"sb", "exec", "--json", "--", code}; !slices.Equal(got, want) {
			t.Errorf("%q → %q, want %q", code, got, want)
		}
	}
}

// TestShellCompletion asks for candidates as the completion scripts do: the
// words typed so far, then --generate-bash-completion.
func TestShellCompletion(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"commands", nil, []string{"sessions\n", "exec\n", "terminal\n", "mcp\n"}},
		{"flags after --", []string{"logs", "--"}, []string{"--count\n", "--follow\n", "--session\n", "--port\n"}},
		{"flags after -", []string{"logs", "-"}, []string{"--count\n", "-n\n", "--follow\n"}},
		{"exec flags", []string{"--port", "1", "exec", "--"}, []string{"--session\n", "--wait\n"}},
		{"contexts", []string{"exec", "--context"}, []string{"edit\nserver\nclient\n"}},
		{"contexts after =", []string{"exec", "--context", "="}, []string{"edit\nserver\nclient\n"}},
		{"log levels", []string{"--log-level"}, []string{"debug\ninfo\nwarn\nerror\n"}},
		{"a registry enum", []string{"logs", "--levels"}, []string{"Print\nInfo\nWarning\nError\n"}},
		{"shells", []string{"completion"}, []string{"bash\nzsh\nfish\npowershell\n"}},
		{"no host, no session ids", []string{"--port", "1", "exec", "-s"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, completionFlag)
			// urfave/cli reads the word being completed from os.Args.
			saved := os.Args
			os.Args = append([]string{"studio-bridge"}, args...)
			defer func() { os.Args = saved }()
			out, errOut, err := run(t, args...)
			if err != nil || errOut != "" {
				t.Fatalf("%v, stderr %q", err, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("candidates lack %q:\n%s", w, out)
				}
			}
		})
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, errOut, err := run(t, "completion", shell)
		if err != nil || !strings.Contains(out, "studio-bridge") || !strings.Contains(strings.ToLower(out), "complete") {
			t.Errorf("completion %s: %v, stderr %q:\n%s", shell, err, errOut, out)
		}
		if shell == "powershell" && (!strings.Contains(out, "Register-ArgumentCompleter -Native -CommandName 'studio-bridge', 'studio-bridge.exe'") || !strings.Contains(out, "--generate-bash-completion")) {
			t.Errorf("the PowerShell script does not register a completer asking studio-bridge:\n%s", out)
		}
		if shell == "fish" && (strings.Contains(out, "help h help h") || strings.Count(out, "-n '__fish_studio-bridge_no_subcommand' -f -l help") != 1) {
			t.Errorf("the fish script lists the help command or flag twice:\n%s", out)
		}
	}
}

// TestCompletingSessionIDs: `exec -s <TAB>` offers the running host's
// session ids.
func TestCompletingSessionIDs(t *testing.T) {
	port := freePort(t)
	n, _ := strconv.Atoi(port)
	bridgekit.Connect(t, bridge.Options{Port: n}) // the running host the completion asks
	p := startPlugin(t, port, "A")
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := p.WaitWelcome(ctx)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--port", port, "exec", "-s", completionFlag}
	saved := os.Args
	os.Args = append([]string{"studio-bridge"}, args...)
	defer func() { os.Args = saved }()
	out, errOut, err := run(t, args...)
	if err != nil || out != id+"\n" {
		t.Fatalf("%v, stdout %q (want %q), stderr %q", err, out, id+"\n", errOut)
	}
}
