// The emulator process's main thread. The window (bin/studio.mjs: its
// DataModels' Luau VMs, sockets and timers) runs in one worker thread; the
// main thread only passes stdin, stdout and stderr through and keeps the
// signals. A Luau script that never yields blocks the worker for good, as it
// freezes Studio (its heartbeats stop, nothing else in the window runs), but
// not the main thread, which can still end the process on SIGINT or SIGTERM.

import { Worker } from 'node:worker_threads'

// How long a signalled window has to take up the request to shut down (its
// event loop answers at once unless a Luau VM holds it; a long but finite
// step on a loaded machine must not pass for a frozen window), and then to
// finish (unloading the plugin: the window's own shutdown gives up after
// 3 s).
export const ACK_MS = 5000
export const SHUTDOWN_MS = 10000

// The signals that ask the emulator to exit: SIGBREAK is Ctrl-Break on
// Windows (what kit.Interrupt and kit's Stop send there).
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK']

// Messages between the two threads (parentPort / worker).
export const MSG_SIGNAL = 'emulator-signal' // main → window: {type, signal}
export const MSG_STOPPING = 'emulator-stopping' // window → main: shutting down

// supervise runs entry (a module URL) in a worker thread with argv and never
// settles: the process exits when the worker does, with its exit code, or
// when a signalled worker does not exit in time.
export function supervise(entry, argv) {
  const worker = new Worker(new URL(entry), { argv, stdin: true })
  process.stdin.pipe(worker.stdin)
  process.stdin.on('error', () => {}) // a closed stdin is not the window's problem
  worker.stdin.on('error', () => {}) // nor a window that exits while stdin flows

  let signalled = ''
  let deadline // the timer that stops a window that did not exit in time
  let forced = false
  let failed = false

  const force = async (why) => {
    if (forced) return
    forced = true
    clearTimeout(deadline)
    process.stderr.write(`emulator: ${why}; ending the process without unloading the plugin\n`)
    const hard = setTimeout(() => process.exit(1), 5000)
    hard.unref()
    await worker.terminate().catch(() => {})
    process.exit(1)
  }
  const onSignal = (signal) => {
    if (signalled) {
      force(`a second ${signal} while the window was shutting down`)
      return
    }
    signalled = signal
    worker.postMessage({ type: MSG_SIGNAL, signal })
    deadline = setTimeout(
      () =>
        force(
          `the window did not take up ${signal} within ${ACK_MS / 1000} s: a Luau script that has not yielded holds it (Studio is frozen until it does), or one step of it ran that long`,
        ),
      ACK_MS,
    )
  }
  for (const s of SIGNALS) process.on(s, () => onSignal(s))

  worker.on('message', (m) => {
    if (m?.type !== MSG_STOPPING || forced) return
    clearTimeout(deadline)
    deadline = setTimeout(() => force(`the window did not finish shutting down within ${SHUTDOWN_MS / 1000} s`), SHUTDOWN_MS)
  })
  worker.on('error', (err) => {
    failed = true
    process.stderr.write(`emulator: fatal: ${err?.stack || err}\n`)
  })
  worker.on('exit', (code) => {
    if (forced) return
    process.exit(failed && code === 0 ? 1 : code)
  })
  return new Promise(() => {})
}
