// Package actions holds the typed payloads and results of plugin actions:
// the contract between the Go side and the Studio plugin, one file per
// action, each with the JSON field names the plugin reads and writes
// (plugin/src/Actions/*.luau; protocol/PROTOCOL.md lists the actions).
//
// It is meant to become the single home of that contract. It starts with
// the script actions (scriptRead, scriptGrep, scriptEdit); the older actions'
// types still live beside their commands in package commands.
package actions
