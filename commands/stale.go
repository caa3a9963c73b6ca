package commands

import (
	"errors"
	"strings"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/sourcemap"
)

// A stale source map is reported, not trusted (issue 24): a mapped file
// missing on disk is found when the map is loaded (ConfigureSourceMap);
// a mapped instance missing in Studio is found for free when a command
// named it and the plugin answered INSTANCE_NOT_FOUND (no extra request
// on any path): the error then says the map lists it, from which file, and
// how to make the map and Studio agree.

// notInStudio is err with the source map's report when err is the plugin's
// INSTANCE_NOT_FOUND and the map lists one of paths (or scripts under it):
// the same code and details, the report after the plugin's message. Any
// other error comes back as it is.
func notInStudio(m *sourcemap.Map, err error, paths ...string) error {
	var perr *protocol.Error
	if m == nil || !errors.As(err, &perr) || perr.Code != protocol.CodeInstanceNotFound {
		return err
	}
	for _, p := range paths {
		if len(paths) > 1 && !strings.Contains(perr.Message, strings.TrimPrefix(p, "game.")) {
			continue // a batch: the edit whose path the plugin named
		}
		if note := m.NotInStudio(p); note != "" {
			return &protocol.Error{Code: perr.Code, Message: perr.Message + "; " + note, Details: perr.Details}
		}
	}
	return err
}

// rootMissing is test's error when what it runs from is not in Studio: the
// --root named, or a synced spec (or its folder, the run's root). One the
// source map lists is reported as a stale map, never as a mount.
func rootMissing(m *sourcemap.Map, args *TestArgs) error {
	if s := args.synced; s != nil {
		note := m.NotInStudio(s.Path)
		if note == "" {
			note = "Studio has no " + s.Path + ", where the source map puts it: is Rojo syncing this project (rojo serve)? Or regenerate the map"
		}
		return Usagef("test: cannot run %s: %s", s.File, note)
	}
	if note := m.NotInStudio(args.Root); note != "" {
		return Usagef("test: %s %s: no such instance in the place; %s", ArgName("root"), args.Root, note)
	}
	return Usagef("test: %s %s: no such instance in the place", ArgName("root"), args.Root)
}
