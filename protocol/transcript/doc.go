// Package transcript reads the recorded plugin conversations under
// protocol/testdata/transcripts: frames one side sends and the frames the
// other must answer, replayed against the host (bridge), the Go fake plugin
// (test/fakeplugin) and the real Luau plugin in the emulator
// (test/emulator/test/transcripts.test.mjs, which parses the same files
// with test/emulator/src/transcript.mjs).
//
// The format is txtar's, kept simple enough to parse in a few lines in any
// language:
//
//	free text, then "key: value" settings (token: the pairing token)
//	-- plugin --
//	{"type":"hello",...}        one JSON frame per line, plugin to host
//	-- host --
//	{"type":"welcome",...}      host to plugin
//
// A "-- lost --" section holds frames the plugin sends that never reach the
// host: the socket drops after them and the plugin connects again (a
// resume), so the frames after it are on a new socket.
//
// Sections alternate as the conversation does; blank lines and lines
// starting with # inside a section are ignored. Frames are compared as JSON
// values (key order and number spelling do not matter; every key and value
// does). Heartbeats (ping, pong) carry the sender's clock and are not
// recorded: a replay answers pings and skips them. Values one side draws at
// random (nonces, session ids, resume secrets, the window's instanceId)
// are injected into the implementation under test, so a replay is
// deterministic: the host and the Go fake take them from the transcript's
// own frames, the emulator from a counting GUID source and, where the
// transcript says "clock: <Unix ms>", a fixed wall clock.
package transcript
