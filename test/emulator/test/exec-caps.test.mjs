// A script that prints thousands of lines without yielding: Studio keeps
// every line (its Luau heap is large), and the plugin's exec keeps the first
// 10,000 lines or 4 MiB (plugin/README.md) and counts the rest in
// droppedLogs. The emulator must get there under Studio's defaults
// (deferred signals, default LogCapacity) instead of running its VM out of
// memory: with deferred signals every line's MessageOut is still queued when
// the script ends.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Window } from '../src/window.mjs'
import { startWindow, until } from './helpers/minihost.mjs'

const MAX_LOG_LINES = 10000
const MAX_LOG_BYTES = 4 * 1024 * 1024

// A window whose VM failing (out of memory) fails the test at once, not
// when a call times out.
function newWindow(options) {
  let failed
  const fatal = new Promise((_, reject) => (failed = reject))
  fatal.catch(() => {})
  const window = new Window({ quiet: true, ...options, onFatal: (m) => failed(new Error(m)) })
  window.orFatal = (p) => Promise.race([p, fatal])
  return window
}

describe('the runtime under a burst of output', () => {
  let window
  let dm
  const ev = async (code) => String(await window.orFatal(dm.command('eval', code)))

  before(async () => {
    window = newWindow({ noPlugin: true })
    await window.start(['edit'])
    dm = window.models.get('edit')
  })
  after(() => window.shutdown())

  test('a deferred event costs a few bytes while queued, not a thread per handler', async () => {
    // 10,000 prints with two MessageOut handlers, no yield: 20,000 handler
    // calls wait for the next resumption point. A coroutine per queued
    // handler cost about 2.5 KB per line here.
    const r = await ev(
      [
        'local LogService = game:GetService("LogService")',
        '_G.burstSeen = {0, 0}',
        'for k = 1, 2 do LogService.MessageOut:Connect(function(m) _G.burstSeen[k] += 1 _G.burstLast = m end) end',
        'local before = gcinfo()',
        'for i = 1, 10000 do print("burst " .. i) end',
        'return math.floor((gcinfo() - before) * 1024 / 10000)',
      ].join('\n'),
    )
    const [ok, perLine] = r.split('\t')
    assert.equal(ok, 'true', r)
    assert.ok(Number(perLine) < 512, `${perLine} bytes of Luau heap per queued line`)
    await until(async () => (await ev('return _G.burstSeen[1] + _G.burstSeen[2]')) === 'true\t20000', 10000)
    assert.equal(await ev('return _G.burstLast, #game:GetService("LogService"):GetLogHistory()'), 'true\tburst 10000\t5000')
  })

  test('a DataModel holds far more than 16 MiB of live data', async () => {
    assert.equal(
      await ev('local t = {} for i = 1, 48 do t[i] = string.rep(string.char(64 + i % 26), 1024 * 1024) end local n = 0 for _, s in t do n += #s end return n'),
      `true\t${48 * 1024 * 1024}`,
    )
  })
})

describe('exec output up to the caps, with deferred signals and the default LogCapacity', () => {
  let host
  let window
  let session

  before(async () => {
    ;({ host, window, session } = await startWindow((port) => ({ window: newWindow({ port }) }), { waitMs: 8000 }))
    assert.equal(window.signalBehavior, 'Deferred')
  })
  after(async () => {
    await window.shutdown()
    await host.close()
  })

  const exec = (script) => window.orFatal(host.call(session, 'exec', { script }, { timeoutMs: 120000 }))

  test('20,000 lines: the first 10,000 are captured, 10,000 dropped', async () => {
    const r = await exec('for i = 1, 20000 do print(i) end return "done"')
    assert.equal(r.ok, true)
    assert.equal(r.payload.success, true)
    assert.deepEqual(r.payload.returnValues, ['done'])
    assert.equal(r.payload.logs.length, MAX_LOG_LINES)
    assert.equal(r.payload.droppedLogs, 20000 - MAX_LOG_LINES)
    assert.equal(r.progress.length, MAX_LOG_LINES)
    r.payload.logs.forEach((l, i) => {
      if (l.level !== 'Print' || l.body !== String(i + 1)) assert.fail(`logs[${i}] = ${JSON.stringify(l)}`)
    })
    assert.deepEqual(r.progress, r.payload.logs)
    // the DataModel is still there, and the next exec starts afresh
    const next = await exec('print("again") return 1')
    assert.deepEqual(next.payload, { success: true, logs: [{ level: 'Print', body: 'again' }], returnValues: [1] })
  })

  test('3,000 lines of 2 KiB: captured up to 4 MiB, the rest dropped', async () => {
    const r = await exec('local pad = string.rep("x", 2048) for i = 1, 3000 do print(i, pad) end')
    assert.equal(r.ok, true)
    assert.equal(r.payload.success, true)
    // what the plugin keeps: lines while their bodies fit in 4 MiB
    let bytes = 0
    let kept = 0
    for (let i = 1; i <= 3000; i++) {
      const len = String(i).length + 1 + 2048
      if (bytes + len > MAX_LOG_BYTES) break
      bytes += len
      kept += 1
    }
    assert.ok(kept < 3000)
    assert.equal(r.payload.logs.length, kept)
    assert.equal(r.payload.droppedLogs, 3000 - kept)
    assert.equal(r.payload.logs.reduce((n, l) => n + l.body.length, 0), bytes)
    assert.equal(r.payload.logs.at(-1).body, `${kept} ${'x'.repeat(2048)}`)
    assert.equal(r.progress.length, kept)
  })
})
