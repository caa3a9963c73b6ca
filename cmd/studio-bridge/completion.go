package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
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

func completionCommand(stdio IO) *cli.Command {
	return &cli.Command{
		Name:         "completion",
		Usage:        "Print a shell completion script: bash, zsh or fish.",
		ArgsUsage:    "<bash|zsh|fish>",
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(stdio.Out, bashCompletion)
			case "zsh":
				fmt.Fprint(stdio.Out, zshCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(stdio.Out, script)
			default:
				return usageErr{fmt.Errorf("completion needs a shell: bash, zsh or fish")}
			}
			return nil
		},
	}
}
