package commands

import (
	"fmt"
	"strings"
)

// CLIHelp is the paragraph `studio-bridge <command> --help` shows under
// the summary: Help, then the default action timeout when the command has
// one (--timeout overrides it).
func (d *Definition) CLIHelp() string {
	var parts []string
	if d.Help != "" {
		parts = append(parts, d.Help)
	}
	if d.Timeout > 0 {
		parts = append(parts, fmt.Sprintf("Timeout: %s unless --timeout says otherwise.", humanDuration(d.Timeout)))
	}
	return strings.Join(parts, "\n\n")
}

// NamesAll reports whether a usage text already names every choice, so
// help need not list them again in parentheses.
func NamesAll(usage string, choices []string) bool {
	for _, c := range choices {
		if !strings.Contains(usage, c) {
			return false
		}
	}
	return true
}
