// Package kit is the one set of helpers for tests that run studio-bridge as
// real processes on real sockets:
//
//   - build the binary once per test run (Binary, Main) or any other
//     command of the module (Build);
//   - free loopback ports (FreePort);
//   - the environment of every child process (ChildEnv: the developer's
//     STUDIO_BRIDGE_* settings removed, one STUDIO_BRIDGE_CONFIG_DIR per
//     test) — the one place where per-test environment is set;
//   - the user's token (authtoken): every process of a test shares its
//     config directory and so one token (ConfigDir, Token); in-process
//     studio-bridge code joins them with UseConfigDir, and in-process code
//     that forgot fails instead of touching the developer's config; a
//     package that runs commands in process before any test can call
//     UseConfigDir gives the whole binary a directory (MainInConfigDir);
//   - background processes with their output (Start, Proc), a host (Serve)
//     and the host file it writes (HostFile),
//     an emulated Studio window (Studio), stopping processes on every
//     platform (Proc.Stop, Proc.Kill, Proc.Terminate, StopPID, StopPIDFile);
//   - Ctrl-C to a child on every platform (Interruptible before its Start,
//     which Start does for every Proc, then Interrupt(proc.Cmd) or
//     InterruptAndWait: SIGINT, or Ctrl-Break on Windows)
//     and a stopped process (Suspend, Resume: SIGSTOP and SIGCONT, or every
//     thread suspended on Windows);
//   - one-shot processes run to their end, with their output, exit code
//     and time (Run, and RunEnv off the test's goroutine);
//   - the fake Studio executable that `launch` starts, stopped at cleanup
//     (StudioScript), and trees of fixture files (Files);
//   - fake plugins (Studio windows), waiting until their sessions are
//     attached (Plugin, Window for several DataModels, Fleet) or not
//     (StartPlugin, FakeStudio), polling
//     (WaitFor) and the host's /health (Health, WaitHealth);
//   - waiting for one value on a channel (Recv);
//   - a stranger holding a port (Stranger, ServeHTTP) and raw posts to an
//     MCP Streamable HTTP endpoint (PostMCP, MCPInitialize);
//   - golden files (Golden, rewritten with -update).
//
// It imports no studio-bridge package but authtoken, protocol and
// test/fakeplugin, so that the bridge package's own tests can use it too;
// helpers that need a *bridge.Bridge live in test/kit/bridgekit.
package kit
