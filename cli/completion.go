package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Shell completion scripts. Each asks studio-bridge itself for the words
// that may come next (urfave/cli's --generate-bash-completion), so they stay
// right as commands and flags change.
const bashCompletion = `# studio-bridge completion for bash: source <(studio-bridge completion bash)
_studio_bridge() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local args=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  [[ "$cur" == -* ]] && args+=("$cur")
  local words
  words=$("${COMP_WORDS[0]}" "${args[@]}" --generate-bash-completion 2>/dev/null)
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _studio_bridge studio-bridge
`

const zshCompletion = `# studio-bridge completion for zsh: source <(studio-bridge completion zsh)
autoload -U +X bashcompinit && bashcompinit
` + bashCompletion

// powershellCompletion registers a native argument completer: the words
// before the cursor (and the word being completed when it is a flag, as
// bash's script does), then --generate-bash-completion; the candidates that
// start with the word being completed are offered.
const powershellCompletion = `# studio-bridge completion for PowerShell: studio-bridge completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName 'studio-bridge', 'studio-bridge.exe' -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $exe = $commandAst.CommandElements[0].ToString()
  $words = @()
  foreach ($e in ($commandAst.CommandElements | Select-Object -Skip 1)) {
    if ($e.Extent.EndOffset -lt $cursorPosition) { $words += $e.ToString() }
  }
  if ($wordToComplete -like '-*') { $words += $wordToComplete }
  & $exe @words --generate-bash-completion 2>$null |
    Where-Object { $_ -like "$wordToComplete*" } |
    ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`

// completionCommand prints the completion scripts; fresh makes an app like
// the running one, whose fish script it prints.
func completionCommand(stdio IO, fresh func() *cli.App) *cli.Command {
	return &cli.Command{
		Name:         "completion",
		Usage:        "Print a shell completion script: bash, zsh, fish or powershell.",
		ArgsUsage:    "<bash|zsh|fish|powershell>",
		OnUsageError: usageError,
		BashComplete: func(c *cli.Context) {
			fmt.Fprintln(stdio.Out, "bash\nzsh\nfish\npowershell")
		},
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(stdio.Out, bashCompletion)
			case "zsh":
				fmt.Fprint(stdio.Out, zshCompletion)
			case "powershell", "pwsh":
				fmt.Fprint(stdio.Out, powershellCompletion)
			case "fish":
				// From a fresh app: the running one has been set up, and
				// its help command and flags would be listed twice.
				script, err := fresh().ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(stdio.Out, script)
			default:
				return commands.UsageError{Err: fmt.Errorf("completion needs a shell: bash, zsh, fish or powershell")}
			}
			return nil
		},
	}
}

// completeValue answers the completion of a flag's value, which urfave/cli
// does not: when the word before the completion request is a flag with a
// known set of values (a context, a log level, a registry enum) or a session
// id, it prints those and reports true. Session ids come from a running
// host; completion never starts one.
func completeValue(ctx context.Context, app *cli.App, args []string, w io.Writer) bool {
	n := len(args)
	if n >= 4 && args[n-2] == "=" {
		// bash splits "--context=" into "--context" and "=".
		args, n = append(args[:n-2:n-2], completionFlag), n-1
	}
	if n < 3 || args[n-1] != completionFlag || !isFlag(args[n-2]) || strings.Contains(args[n-2], "=") {
		return false
	}
	name := strings.TrimLeft(args[n-2], "-")
	var words []string
	switch name {
	case "context":
		words = []string{string(protocol.ContextEdit), string(protocol.ContextServer), string(protocol.ContextClient)}
	case "log-level":
		words = []string{"debug", "info", "warn", "error"}
	case "session", "s":
		words = sessionIDs(ctx, args[:n-2])
	default:
		if d := commands.Lookup(commandName(app, args[1:n-2])); d != nil {
			for _, a := range commands.Fields(d.Args) {
				if (a.Flag == name || a.Short == name) && !a.Switch && len(a.Enum) > 0 {
					words = a.Enum
				}
			}
		}
		if words == nil {
			return false
		}
	}
	for _, word := range words {
		fmt.Fprintln(w, word)
	}
	return true
}

// commandName is the first word of args that names a command.
func commandName(app *cli.App, args []string) string {
	for i, a := range args {
		if cmd := app.Command(a); cmd != nil {
			if len(cmd.Subcommands) > 0 && i+1 < len(args) && cmd.Command(args[i+1]) != nil {
				return a + " " + args[i+1] // a group's leaf
			}
			return a
		}
	}
	return ""
}

// sessionIDs lists the sessions of the host the command line points at,
// or nothing if no host answers within half a second.
func sessionIDs(ctx context.Context, args []string) []string {
	port, remote := os.Getenv("STUDIO_BRIDGE_PORT"), os.Getenv("STUDIO_BRIDGE_REMOTE")
	if port == "" {
		port = fmt.Sprint(protocol.DefaultPort)
	}
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		switch {
		case !isFlag(a):
		case name == "port":
			port = value
		case name == "remote":
			remote = value
		}
	}
	if remote == "" {
		remote = net.JoinHostPort("127.0.0.1", port)
	}
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	tok, err := authtoken.Resolve()
	if err != nil {
		return nil
	}
	b, err := bridge.Connect(ctx, bridge.Options{Remote: remote, Version: commands.Version, Token: tok, JoinTimeout: 500 * time.Millisecond})
	if err != nil {
		return nil
	}
	defer func() { _ = b.Close() }() // completion prints candidates only: nothing to report to
	list, err := b.Sessions(ctx)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(list))
	for _, s := range list {
		ids = append(ids, s.SessionID)
	}
	return ids
}
