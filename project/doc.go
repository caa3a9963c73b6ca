// Package project finds the project root: the folder whose files are the
// truth for a session of studio-bridge (a Rojo project's default.project.json
// and sourcemap.json live there). It is one small shared place so the source
// map (package sourcemap) and the pairing of a folder with a Studio window
// resolve the root the same way: --project DIR, else STUDIO_BRIDGE_PROJECT,
// else the working directory.
package project
