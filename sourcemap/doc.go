// Package sourcemap maps Roblox DataModel locations to the files they come
// from, so what studio-bridge prints names src/server/Main.server.luau:27
// instead of ServerScriptService.Main:27.
//
// A Rojo source map (sourcemap.json, made by `rojo sourcemap`) is a tree of
// {name, className, filePaths?, children?}; Load bounds its size and depth
// before parsing it and indexes every instance that has a .luau or .lua file
// (Rojo also lists .meta.json and .model.json files, which are not code and
// are ignored) both ways: DataModel path → file and file → DataModel path.
//
// Discover finds the map (--sourcemap FILE, STUDIO_BRIDGE_SOURCEMAP, else
// sourcemap.json in the project root of package project), says once how to
// make one when a Rojo project has none or has one older than its folders,
// regenerates it with the rojo on PATH when asked to, and reports mapped
// files that are missing on disk: such a map is reported, not trusted.
// The other half of staleness, a mapped instance Studio lacks, costs no
// request: Map.NotInStudio words it for a command whose request named the
// instance and whose answer was INSTANCE_NOT_FOUND.
//
// Scan finds every location in a line of text — Studio's stack lines
// (Script 'A.B', Line N), error prefixes (A.B:N: message), traceback frames
// (A.B:N function f) and file chunk names (scripts/run.luau:2:) — and
// Map.Locate and Map.Rewrite turn them into files: a location whose
// instance is not in the map stays a DataModel path.
package sourcemap
