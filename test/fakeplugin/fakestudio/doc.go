// Command fakestudio stands in for the Roblox Studio executable in tests of
// `studio-bridge launch`: it runs one fake plugin session (edit context) for
// the place named by its argument, on the port in STUDIO_BRIDGE_PORT, until
// it is killed.
package main
