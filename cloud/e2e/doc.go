// Package e2e runs the built studio-bridge binary's `exec --cloud` and
// `test --cloud` against the cloudtest stand-in through
// STUDIO_BRIDGE_OPEN_CLOUD_URL, and, when ROBLOX_API_KEY, ROBLOX_UNIVERSE_ID
// and ROBLOX_PLACE_ID are set, against the real Open Cloud.
package e2e
