package cli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/project"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// sourceMapFlags are the global flags that say where the project and its
// Rojo source map are (issue 24).
func sourceMapFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project", EnvVars: []string{project.EnvVar}, Usage: "the project root `DIR` (default: the working directory)"},
		&cli.StringFlag{Name: "sourcemap", EnvVars: []string{sourcemap.EnvVar}, Usage: "Rojo source map `FILE` that turns DataModel locations into files (default: sourcemap.json in the project root)"},
		&cli.BoolFlag{Name: "rojo", Usage: "make or refresh a missing or stale source map with the rojo on PATH"},
	}
}

// configureSourceMap resolves the project root now (a bad --project is a
// usage error) and leaves finding the map to the first command that prints
// a location; its hints go to errOut.
func configureSourceMap(c *cli.Context, errOut io.Writer) error {
	root, err := project.Root(global(c, "project").String("project"), nil)
	if err != nil {
		return commands.UsageError{Err: err}
	}
	commands.ConfigureSourceMap(c.Context, sourcemap.Options{
		Flag: global(c, "sourcemap").String("sourcemap"),
		Root: root,
		Rojo: global(c, "rojo").Bool("rojo"),
		// the environment is read by urfave/cli into the flags above
		Getenv: func(string) string { return "" },
	}, func(s string) { fmt.Fprintln(errOut, "note: "+s) })
	return nil
}
