#!/usr/bin/env node
// The Luau side of the tests' Open Cloud stand-in (cloud/cloudtest): runs
// Luau Execution tasks' scripts in the emulator's Luau runtime against the
// place a Rojo project builds, as Open Cloud runs them on a game server.
// See test/emulator/README.md, "Open Cloud tasks".
//
// A long-lived worker: one JSON request a line on stdin, one JSON answer a
// line on stdout when that task ends; tasks run concurrently, each in a
// fresh server DataModel (its own Luau VM) holding the project's instances
// over fixtures/cloud.json's empty services.
//
//   request: {"id", "script", "placeVersion", "timeoutMs"}
//            {"cancel": id}   stop that task (its answer says CANCELLED)
//   answer:  {"id", "state": "COMPLETE"|"FAILED"|"CANCELLED",
//             "results"?: [...], "error"?: {"code", "message"},
//             "logs": [{"messageType", "message"}]}
//
// Closing stdin stops every task still running and exits.

import { createInterface } from 'node:readline'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { chunked } from '../src/vm.mjs'
import { loadRojoProject } from '../src/rojo.mjs'
import { mergeProject, Window } from '../src/window.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

const USAGE = `usage: node test/emulator/bin/cloud-task.mjs --project <default.project.json>
     [--fixture <file>] [--place-id <n>] [--game-id <n>]

Runs Open Cloud Luau Execution tasks (JSON lines on stdin, answers on stdout)
in fresh server DataModels holding the Rojo project's place.`

// Open Cloud's limits on one task's output (docs/open-cloud.md): results
// up to 4 MB; logs are cut near 450 KB.
const MAX_RESULTS_BYTES = 4 * 1000 * 1000
const MAX_LOG_BYTES = 450 * 1000
// A request line is bounded before it is parsed: a script is at most 4 MB
// (the create refuses more), JSON-escaped at most about twice that.
const MAX_LINE = 10 * 1024 * 1024

const LOG_TYPE = { MessageOutput: 'OUTPUT', MessageInfo: 'INFO', MessageWarning: 'WARNING', MessageError: 'ERROR' }

function fail(message) {
  process.stderr.write(`cloud-task: ${message}\n`)
  process.exit(2)
}

let args
try {
  args = parseArgs({
    options: {
      project: { type: 'string' },
      fixture: { type: 'string' },
      'place-id': { type: 'string' },
      'game-id': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values
} catch (err) {
  fail(`${err.message}\n\n${USAGE}`)
}
if (args.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
if (!args.project) fail(`--project is required\n\n${USAGE}`)
const wholeNumber = (flag, v) => {
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isSafeInteger(n) || n < 0) fail(`${flag} ${v}: want a whole number >= 0`)
  return n
}
const placeId = wholeNumber('--place-id', args['place-id'])
const gameId = wholeNumber('--game-id', args['game-id'])

// The place: the project's instances over the fixture's services, read
// once (a place version never changes).
let place
try {
  place = JSON.parse(readFileSync(args.fixture ?? path.join(here, '..', 'fixtures', 'cloud.json'), 'utf8'))
  const notes = []
  mergeProject(place, loadRojoProject(args.project, { place: true, notes }))
  for (const note of notes) process.stderr.write(`cloud-task: note: ${note}\n`)
} catch (err) {
  fail(`the place: ${err.message}`)
}

const running = new Map() // id -> { finish }

function answer(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n')
}

// runTask runs one task to its end and answers it.
async function runTask(req) {
  const logs = []
  let logBytes = 0
  let done
  const ended = new Promise((resolve) => (done = resolve))
  let window
  const finish = (result) => done(result)
  running.set(req.id, { finish })
  try {
    window = new Window({
      noPlugin: true,
      quiet: true,
      fixtureData: place,
      placeId,
      gameId,
      placeVersion: req.placeVersion,
      onTaskDone: (context, ok, text) => finish({ ok, text }),
      onFatal: (message) => finish({ fatal: message }),
      err: (line) => process.stderr.write(`cloud-task ${req.id}: ${line}\n`),
    })
    window.outputListeners.push((context, messageType, message) => {
      const size = Buffer.byteLength(message) + 32
      if (logBytes + size > MAX_LOG_BYTES) return // Open Cloud cuts the log
      logBytes += size
      logs.push({ messageType: LOG_TYPE[messageType] ?? 'OUTPUT', message })
    })
    await window.start(['server'])
    const dm = window.models.get('server')
    for (const part of chunked(req.script)) await dm.command('task-chunk', part)
    // the timeout counts from the script's start: loading the place is
    // the server's start (the stand-in's cold and warm start delays)
    const timer = setTimeout(() => finish({ deadline: true }), req.timeoutMs > 0 ? req.timeoutMs : 300000)
    timer.unref()
    await dm.command('task-run')
    const r = await ended
    clearTimeout(timer)
    if (r.cancel) return { state: 'CANCELLED', logs }
    if (r.deadline) return { state: 'FAILED', error: { code: 'DEADLINE_EXCEEDED', message: 'The task exceeded its timeout.' }, logs }
    if (r.fatal) return { state: 'FAILED', error: { code: 'INTERNAL_ERROR', message: r.fatal }, logs }
    if (!r.ok) return { state: 'FAILED', error: { code: 'SCRIPT_ERROR', message: r.text }, logs }
    if (Buffer.byteLength(r.text) > MAX_RESULTS_BYTES) {
      return { state: 'FAILED', error: { code: 'OUTPUT_SIZE_LIMIT_EXCEEDED', message: 'The task output exceeded its size limit.' }, logs }
    }
    return { state: 'COMPLETE', results: JSON.parse(r.text), logs }
  } catch (err) {
    return { state: 'FAILED', error: { code: 'INTERNAL_ERROR', message: `cloud-task: ${err.message}` }, logs }
  } finally {
    running.delete(req.id)
    // the task has ended: its answer goes first, the DataModel goes after
    if (window) setImmediate(() => track(window.shutdown().catch(() => {})))
  }
}

const tasks = new Set() // tasks and shutdowns still running
function track(p) {
  tasks.add(p)
  p.finally(() => tasks.delete(p))
  return p
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
rl.on('line', (line) => {
  if (line.length > MAX_LINE) {
    process.stderr.write(`cloud-task: a request of ${line.length} characters is over ${MAX_LINE}; ignored\n`)
    return
  }
  let req
  try {
    req = JSON.parse(line)
  } catch {
    process.stderr.write('cloud-task: a request is not JSON; ignored\n')
    return
  }
  if (req.cancel !== undefined) {
    running.get(req.cancel)?.finish({ cancel: true })
    return
  }
  if (typeof req.id !== 'string' || typeof req.script !== 'string') {
    process.stderr.write('cloud-task: a request needs a string id and script; ignored\n')
    return
  }
  track(runTask(req).then((out) => answer({ id: req.id, ...out })))
})
rl.on('close', async () => {
  for (const { finish } of running.values()) finish({ cancel: true })
  while (tasks.size > 0) await Promise.allSettled([...tasks]) // shutdowns start as tasks end
  process.exit(0)
})
