// bin/cloud-task.mjs, the Luau side of the tests' Open Cloud stand-in:
// each task runs in a fresh server DataModel holding the Rojo project's
// place, with game.PlaceVersion the version asked for; its return values
// come back JSON-encoded, its errors, timeout and cancellation as Open
// Cloud's task states, its Output as log lines.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { after, before, test } from 'node:test'

const here = path.dirname(fileURLToPath(import.meta.url))
let dir
let worker
const waiting = new Map()
let nextId = 0

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cloud-task-'))
  mkdirSync(path.join(dir, 'lib'))
  writeFileSync(path.join(dir, 'lib', 'Numbers.luau'), 'return { answer = 42 }\n')
  writeFileSync(
    path.join(dir, 'default.project.json'),
    JSON.stringify({ name: 'P', tree: { $className: 'DataModel', ServerStorage: { Lib: { $path: 'lib' } } } }),
  )
  worker = spawn(process.execPath, [path.join(here, '..', 'bin', 'cloud-task.mjs'), '--project', path.join(dir, 'default.project.json')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  createInterface({ input: worker.stdout }).on('line', (line) => {
    const a = JSON.parse(line)
    waiting.get(a.id)?.(a)
    waiting.delete(a.id)
  })
})

after(async () => {
  worker.stdin.end()
  await new Promise((r) => worker.on('exit', r))
  rmSync(dir, { recursive: true, force: true })
})

function run(script, { placeVersion = 5, timeoutMs = 60000, cancel = false } = {}) {
  const id = String(++nextId)
  const answered = new Promise((resolve) => waiting.set(id, resolve))
  worker.stdin.write(JSON.stringify({ id, script, placeVersion, timeoutMs }) + '\n')
  if (cancel) setTimeout(() => worker.stdin.write(JSON.stringify({ cancel: id }) + '\n'), 300)
  return answered
}

test('a task runs on a server holding the project, sees its place version, returns JSON and logs Output', async () => {
  const a = await run(
    `print("hello", 1) warn("careful")
    task.wait(0.05)
    local rs = game:GetService("RunService")
    return game.PlaceVersion, require(game.ServerStorage.Lib.Numbers).answer, rs:IsServer(), rs:IsClient(), { x = "y" }, { 3, 4 }`,
    { placeVersion: 12 },
  )
  assert.equal(a.state, 'COMPLETE', JSON.stringify(a))
  assert.deepEqual(a.results, [12, 42, true, false, { x: 'y' }, [3, 4]])
  assert.deepEqual(a.logs, [
    { messageType: 'OUTPUT', message: 'hello 1' },
    { messageType: 'WARNING', message: 'careful' },
  ])
})

test('tasks run concurrently, each in a fresh DataModel', async () => {
  const [first, second] = await Promise.all([
    run('local f = Instance.new("Folder") f.Name = "Left" f.Parent = workspace task.wait(0.2) return workspace:FindFirstChild("Left") ~= nil'),
    run('task.wait(0.1) return workspace:FindFirstChild("Left") == nil'),
  ])
  assert.deepEqual([first.results, second.results], [[true], [true]])
})

test('errors, compile errors and values JSON cannot hold fail the task', async () => {
  const thrown = await run('error("boom")')
  assert.equal(thrown.state, 'FAILED')
  assert.equal(thrown.error.code, 'SCRIPT_ERROR')
  assert.match(thrown.error.message, /TaskScript:1: boom/)
  const bad = await run('return (')
  assert.equal(bad.error.code, 'SCRIPT_ERROR')
  const inst = await run('return workspace')
  assert.equal(inst.state, 'FAILED')
  assert.match(inst.error.message, /return value 1 \(a Instance\) cannot be converted to JSON/)
})

test('a task past its timeout fails with DEADLINE_EXCEEDED; a cancelled one ends CANCELLED', async () => {
  const late = await run('task.wait(60) return 1', { timeoutMs: 500 })
  assert.equal(late.state, 'FAILED')
  assert.equal(late.error.code, 'DEADLINE_EXCEEDED')
  const cancelled = await run('task.wait(30) return 1', { cancel: true })
  assert.equal(cancelled.state, 'CANCELLED')
})
