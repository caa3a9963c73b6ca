// Command fakestudio stands in for the Roblox Studio executable in tests of
// `studio-bridge launch`: it runs a fake plugin (fakeplugin.Start: one
// Studio window with an edit session) for the place named by its argument,
// on the port in STUDIO_BRIDGE_PORT, until it is killed (on SIGTERM or
// SIGINT it says goodbye first, as Studio closing does).
package main
