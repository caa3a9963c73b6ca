// The real plugin under Studio's limits (README, "Studio's limits"): a
// window's DataModels tied together over PluginConnectionService rather than
// the shared settings store, and settings reads that return nil.

import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { Window } from '../src/window.mjs'
import { MiniHost, TEST_PAIRING, until } from './helpers/minihost.mjs'

const cleanup = []
after(async () => {
  for (const f of cleanup.reverse()) await f()
})

async function startHost() {
  const host = new MiniHost()
  const port = await host.listen()
  cleanup.push(() => host.close())
  return { host, port }
}

// output, when given, collects every Output line from the start.
async function startWindow(contexts, options, output) {
  const window = new Window({
    quiet: true,
    pairing: TEST_PAIRING,
    onFatal: (m) => {
      throw new Error(m)
    },
    ...options,
  })
  cleanup.push(() => window.shutdown())
  if (output) window.outputListeners.push((context, type, message) => output.push({ context, type, message }))
  await window.start(contexts)
  return window
}

const live = (host) => host.sessions.filter((s) => !s.closed)

describe('Play DataModels learn their window over PluginConnectionService', () => {
  test('with every settings read nil, all three share the edit id and the edit session reports Play', async () => {
    const { host, port } = await startHost()
    // every read of the window registry answers nil
    await startWindow(['edit', 'server', 'client'], {
      port,
      instance: 'PCS-WINDOW',
      faults: ['settings-nil:1:StudioBridgeWindows'],
    })
    await until(() => live(host).length === 3, 15000)
    for (const s of live(host)) assert.equal(s.hello.instanceId, 'PCS-WINDOW', s.hello.context)
    const edit = await host.sessionFor('edit')
    await until(async () => (await host.call(edit, 'state', {})).payload.state === 'Play', 8000)
  })

  test('without PluginConnectionService (and no readable settings) they fall back to ids of their own', async () => {
    const { host, port } = await startHost()
    await startWindow(['edit', 'server'], {
      port,
      instance: 'NO-PCS-WINDOW',
      pluginConnectionService: false,
      faults: ['settings-nil:1:StudioBridgeWindows'],
    })
    await until(() => live(host).length === 2, 15000)
    const server = await host.sessionFor('server')
    assert.match(server.hello.instanceId, /^solo-server-/)
  })
})

describe('two windows on one settings file with settings-nil:0.3', () => {
  test('both register on the configured port and stay registered with the same session ids', async () => {
    const { host, port } = await startHost()
    const dir = mkdtempSync(path.join(tmpdir(), 'bridge-settings-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    const settingsFile = path.join(dir, 'settings.json')
    const common = { port, settingsFile, faults: ['settings-nil:0.3'] }
    // one node process: two places, as two Studio processes started within
    // 2 s of each other are told apart only by place (plugin/README.md)
    const a = await startWindow(['edit'], { ...common, instance: 'WINDOW-A', place: 'PlaceA' })
    const b = await startWindow(['edit'], { ...common, instance: 'WINDOW-B', place: 'PlaceB' })
    await until(() => live(host).length === 2, 15000)
    const idsNow = () => new Map(live(host).map((s) => [s.hello.instanceId, s.sessionId]))
    const ids = idsNow()
    assert.deepEqual([...ids.keys()].sort(), ['WINDOW-A', 'WINDOW-B'])
    // Each reconnect reads the port again (probe and connect): a nil read
    // taken as "unset" would send the plugin to the default port. Nil is
    // "unknown": the last port seen stays, and only the configured port is
    // ever reached.
    for (let round = 0; round < 4; round++) {
      const before = host.sessions.length
      for (const w of [a, b]) w.models.get('edit').dropSockets()
      await until(() => host.sessions.length === before + 2 && live(host).length === 2, 15000)
      assert.deepEqual(idsNow(), ids, `round ${round}: same session ids`)
    }
    for (const [name, w] of [['WINDOW-A', a], ['WINDOW-B', b]]) {
      const reached = w.models.get('edit').portsReached
      assert.deepEqual([...reached.keys()], [String(port)], `${name} reached ports ${JSON.stringify(Object.fromEntries(reached))}`)
    }
    const stored = JSON.parse(readFileSync(settingsFile, 'utf8'))
    assert.equal(stored.StudioBridgePort, port)
    for (const key of Object.keys(stored)) assert.match(key, /^StudioBridge/)
    const records = JSON.parse(stored.StudioBridgeWindows).map((r) => r.id).sort()
    assert.deepEqual(records, ['WINDOW-A', 'WINDOW-B'], 'neither window erased the other one’s record')
  })

  test('an old unprefixed Port is migrated once', async () => {
    const { host, port } = await startHost()
    const dir = mkdtempSync(path.join(tmpdir(), 'bridge-settings-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    const settingsFile = path.join(dir, 'settings.json')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(settingsFile, JSON.stringify({ Port: port, OtherPlugin: 1 }))
    await startWindow(['edit'], { settingsFile })
    await until(() => live(host).length === 1, 15000)
    const stored = JSON.parse(readFileSync(settingsFile, 'utf8'))
    assert.equal(stored.StudioBridgePort, port)
    assert.equal(stored.StudioBridgeMigrated, true)
    assert.equal(stored.Port, port, 'the old key is left alone')
    assert.equal(stored.OtherPlugin, 1)
  })
})

describe('failures the user must see (one warning a minute, no hot loop)', () => {
  const warnings = (output) => output.filter((o) => o.type === 'MessageWarning' && o.message.startsWith('[StudioBridge]'))

  test('--fault http-denied: one warning naming the denial, a slowing retry, connected once allowed', async () => {
    const { host, port } = await startHost()
    const output = []
    const window = await startWindow(['edit'], { port, faults: ['http-denied'] }, output)
    const dm = window.models.get('edit')
    await new Promise((r) => setTimeout(r, 7000))
    const w = warnings(output)
    assert.equal(w.length, 1, JSON.stringify(output))
    assert.match(w[0].message, /denied this plugin access to 127\.0\.0\.1 \(.*Http requests are not allowed.*\)\. Allow HTTP requests/)
    // failing schedule: 2 + 4 s, so about 3 probes in 7 s (a hot loop makes hundreds)
    assert.ok(dm.netAttempts.http >= 2 && dm.netAttempts.http <= 4, `${dm.netAttempts.http} HTTP attempts in 7 s`)
    assert.equal(await dm.command('button', 'StudioBridgeToggle'), 'inactive')
    window.faults.clear()
    await until(() => live(host).length === 1, 20000)
  })

  test('a refused WebSocket upgrade: one warning with the HTTP status', async () => {
    const { host, port } = await startHost()
    host.refuseUpgrade = 403
    const output = []
    await startWindow(['edit'], { port }, output)
    await until(() => (host.refusedUpgrades || 0) >= 2, 15000)
    const w = warnings(output)
    assert.equal(w.length, 1, JSON.stringify(output))
    assert.match(w[0].message, /refused this plugin's WebSocket upgrade \(HTTP 403 /)
    host.refuseUpgrade = 0
    await until(() => live(host).length === 1, 20000)
  })
})

describe('long work lets heartbeats through', () => {
  test('a query over 20,000 instances and its encoding keep answering pings', async () => {
    const host = new MiniHost({ pingMs: 100 })
    const port = await host.listen()
    cleanup.push(() => host.close())
    await startWindow(['edit'], { port })
    const s = await host.waitSession(15000)
    const made = await host.call(s, 'exec', {
      script: 'local f = Instance.new("Folder") f.Name = "Many" f.Parent = workspace for i = 1, 20000 do local p = Instance.new("Part") p.Name = "P" .. i p.Parent = f end return #f:GetChildren()',
    })
    assert.deepEqual(made.payload.returnValues, [20000])
    const pongs = []
    s.ws.on('message', (data) => {
      if (JSON.parse(data.toString('utf8')).type === 'pong') pongs.push(performance.now())
    })
    const started = performance.now()
    const r = await host.call(s, 'query', { path: 'Workspace.Many', depth: 1 })
    const ended = performance.now()
    assert.equal(r.ok, true)
    let gap = 0
    let prev = started
    for (const t of [...pongs.filter((t) => t > started && t < ended), ended]) {
      gap = Math.max(gap, t - prev)
      prev = t
    }
    assert.ok(ended - started > 1000, `the query took ${Math.round(ended - started)} ms: too short to prove anything`)
    assert.ok(gap < 1000, `pongs stopped for ${Math.round(gap)} ms during a ${Math.round(ended - started)} ms query`)
  })
})

describe('screenshots in Play at 1920x1080', () => {
  test('the client returns the viewport downscaled to 1024x576; the edit DataModel says it does not render', async () => {
    const { host, port } = await startHost()
    await startWindow(['edit', 'server', 'client'], { port }) // server and client relayed over the edit socket
    await until(() => live(host).length === 3, 15000)
    const client = await host.call(await host.sessionFor('client'), 'screenshot')
    assert.equal(client.ok, true, JSON.stringify(client.error))
    assert.deepEqual([client.payload.width, client.payload.height], [1024, 576])
    assert.equal(Buffer.from(client.payload.data, 'base64').length, 1024 * 576 * 4)
    const edit = await host.call(await host.sessionFor('edit'), 'screenshot')
    assert.equal(edit.error.code, 'SCREENSHOT_FAILED')
    assert.match(edit.error.message, /does not render while the game runs in Play: the client DataModel does/)
  })

  test('permission denied says so (asked once)', async () => {
    const { host, port } = await startHost()
    await startWindow(['edit'], { port, faults: ['screenshot:denied'] })
    const s = await host.waitSession(15000)
    for (let i = 0; i < 2; i++) {
      const r = await host.call(s, 'screenshot')
      assert.equal(r.error.code, 'SCREENSHOT_FAILED')
      assert.match(r.error.message, /permission denied: the user did not allow studio-bridge to capture screenshots/)
    }
  })
})
