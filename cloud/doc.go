// Package cloud runs Luau through Roblox Open Cloud's Luau Execution API:
// the backend of `studio-bridge exec --cloud`, for CI runners that have no
// Roblox Studio.
//
// A [Client] creates a task on a place (or one version of it), polls exactly
// the path the create answered, streams the task's structured log lines and
// returns its [Outcome]. It can first upload a place file as a Saved version
// ([Client.UploadPlace]) so a CI job tests exactly what it built.
//
// The client is polite: polls back off from PollMin to PollMax, a 429 waits
// for Retry-After or x-ratelimit-reset (else exponential backoff with
// jitter), attempts are bounded, every request has a timeout and every
// response a size bound. A create whose answer was lost is never re-sent: it
// is reported as an unknown outcome. The API key travels only in the
// x-api-key header; no error, log line or output carries it.
//
// References (Roblox Creator Hub):
//   - https://create.roblox.com/docs/cloud/reference/features/luau-execution
//   - https://create.roblox.com/docs/cloud/reference/rate-limits
//   - https://create.roblox.com/docs/cloud/guides/usage-place-publishing
//   - https://github.com/Roblox/place-ci-cd-demo (the reference client)
//
// Package cloudtest holds a stand-in server that follows that reference.
package cloud
