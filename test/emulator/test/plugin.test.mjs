// The real plugin, in the emulator, against a JavaScript host that speaks the
// wire protocol: handshake, heartbeats, reconnection, every action, events,
// faults. Fast and Go-free; e2e_test.go repeats the important parts against
// the real Go host.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Window } from '../src/window.mjs'
import { MiniHost, startWindow, until } from './helpers/minihost.mjs'

function newWindow(port, extra = {}) {
  const output = []
  const window = new Window({
    port,
    quiet: true,
    onFatal: (m) => {
      throw new Error(m)
    },
    ...extra,
  })
  window.outputListeners.push((context, type, message) => output.push({ context, type, message }))
  return { window, output }
}

// A MiniHost and one window in Play mode (edit, server and client), once all
// three DataModels have registered: the server and client sessions travel
// over the edit DataModel's socket (the relay), as in Studio, whose client
// cannot reach localhost.
function startPlayWindow(extra) {
  return startWindow((port) => newWindow(port, extra), {
    contexts: ['edit', 'server', 'client'],
    waitMs: 8000,
  })
}

// A MiniHost and one edit window made with extra, once it has registered
// (within waitMs).
function startEditWindow(extra, waitMs) {
  return startWindow((port) => newWindow(port, extra), { waitMs })
}

// A script whose output mostly does not come from its own print/warn: a
// required module, a loadstring chunk (where loadstring exists), an error in
// a spawned thread. Studio reports those only through LogService.MessageOut.
function mixedOutputScript(withLoadstring) {
  return [
    'local m = Instance.new("ModuleScript")',
    `m.Source = 'print("from module") return function() print("module fn") end'`,
    'm.Parent = workspace',
    'require(m)()',
    withLoadstring ? `loadstring('print("inner")')()` : '-- no loadstring here',
    'print("top")',
    'task.spawn(function() error("bg err") end)',
    'task.wait(0.2)',
    'print("after")',
    'warn("careful")',
    'return 1',
  ].join('\n')
}

// Checks an exec of mixedOutputScript: every line once, in arrival order.
// With deferred signals (Studio's default) the MessageOut lines arrive at the
// script's next yield, after its own "top"; with immediate ones, as printed.
function checkMixedOutput(r, { withLoadstring, immediate, label }) {
  assert.equal(r.ok, true, label)
  assert.equal(r.payload.success, true, label)
  assert.deepEqual(r.payload.returnValues, [1], label)
  assert.deepEqual(r.payload.logs, r.progress, `${label}: logs are the streamed lines`)
  const others = [{ level: 'Print', body: 'from module' }, { level: 'Print', body: 'module fn' }]
  if (withLoadstring) others.push({ level: 'Print', body: 'inner' })
  const top = { level: 'Print', body: 'top' }
  const expected = [
    ...(immediate ? [...others, top] : [top, ...others]),
    { level: 'Error', body: 'Script:7: bg err' },
    { level: 'Print', body: 'after' },
    { level: 'Warning', body: 'careful' },
  ]
  assert.deepEqual(
    r.progress.filter((l) => l.level !== 'Info'),
    expected,
    label,
  )
  // the error's stack follows it, as Studio's Output shows it
  const err = r.progress.findIndex((l) => l.level === 'Error')
  const stack = r.progress.slice(err + 1).filter((l) => l.level === 'Info')
  assert.equal(stack[0]?.body, 'Stack Begin', label)
  assert.equal(stack.at(-1)?.body, 'Stack End', label)
  assert.ok(
    stack.some((l) => l.body.startsWith("Script 'Script', Line 7")),
    `${label}: ${JSON.stringify(stack)}`,
  )
  assert.ok(!r.progress.some((l) => l.body.startsWith('[StudioBridge]')), `${label}: no internal lines`)
}

// A script that prints and warns around a yield, then answers with values
// of several kinds (a nil among them).
const plainOutputScript = 'print("one")\nwarn("two")\ntask.wait(0.05)\nprint("three", 3)\nreturn 7, "x", nil, Vector3.new(1, 2, 3)'

// Checks an exec of plainOutputScript in the DataModel label names: its
// lines streamed in order, then the answer with the same lines and every
// value (one undo step in the edit DataModel, plugin/README.md, exec).
function checkPlainOutput(r, label) {
  assert.equal(r.ok, true, label)
  assert.deepEqual(
    r.progress,
    [
      { level: 'Print', body: 'one' },
      { level: 'Warning', body: 'two' },
      { level: 'Print', body: 'three 3' },
    ],
    label,
  )
  assert.deepEqual(
    r.payload,
    {
      success: true,
      logs: r.progress,
      returnValues: [7, 'x', null, { $type: 'Vector3', value: [1, 2, 3] }],
      // it changes nothing, so there is nothing to undo: no undoable
    },
    label,
  )
}

// Globals persist from one exec to the next in the same DataModel; locals do
// not; a function defined by one exec prints into the exec that calls it.
async function checkPersistentGlobals(host, s, label) {
  let r = await host.call(s, 'exec', {
    script: [
      'function double(x) return x * 2 end',
      'execCounter = (execCounter or 0) + 1',
      'local hidden = 5',
      'function shout(text) print(text) end',
      'return execCounter',
    ].join('\n'),
  })
  // globals live in the exec environment, not the DataModel: no undo step
  assert.deepEqual(r.payload, { success: true, returnValues: [1], logs: [] }, label)
  r = await host.call(s, 'exec', { script: 'shout("hi")\nexecCounter += 1\nreturn double(4), execCounter, hidden, script, plugin' })
  assert.deepEqual(r.payload.returnValues, [8, 2, null, null, null], label)
  assert.deepEqual(r.progress, [{ level: 'Print', body: 'hi' }], `${label}: captured once, by the calling exec`)
  assert.deepEqual(r.payload.logs, r.progress, label)
  r = await host.call(s, 'exec', { script: 'return typeof(game), type(print), type(shout), rawequal(workspace, game:GetService("Workspace"))' })
  assert.deepEqual(r.payload.returnValues, ['Instance', 'function', 'function', true], label)
}

describe('edit window against a protocol-level host', () => {
  let host
  let window
  let output
  let session

  before(async () => {
    ;({ host, window, output, session } = await startWindow((port) => newWindow(port, { instance: 'WIN-1' }), { hostOptions: { pingMs: 300 } }))
  })

  after(async () => {
    await window.shutdown()
    await host.close()
  })

  test('the socket\'s hello offers version 2 only; the attach describes the session', () => {
    assert.deepEqual(session.socket.hello, { type: 'hello', protocolVersions: [2], pluginVersion: '0.1.0', instanceId: 'WIN-1' })
    const h = session.hello
    assert.equal(h.type, 'attach')
    assert.equal(h.ref, 'self')
    assert.equal(h.instanceId, 'WIN-1')
    assert.equal(h.context, 'edit')
    assert.equal(h.state, 'Edit')
    assert.equal(h.placeName, 'TestPlace')
    assert.equal(h.placeId, 1234567890)
    assert.equal(h.gameId, 9876543210)
    assert.equal(h.pluginVersion, '0.1.0')
    assert.equal(h.previousSessionId, undefined)
    for (const c of ['state', 'logs', 'query', 'exec', 'screenshot', 'subscribe', 'unsubscribe']) assert.ok(h.capabilities.includes(c), c)
  })

  test('answers pings with the same t', async () => {
    await until(() => session.pongs.length >= 2, 3000)
    assert.equal(typeof session.pongs[0].t, 'number')
  })

  test('says it connected, once, prefixed', async () => {
    const lines = output.filter((o) => o.message.startsWith('[StudioBridge] connected'))
    assert.equal(lines.length, 1)
  })

  test('state', async () => {
    const r = await host.call(session, 'state')
    assert.deepEqual(r.payload, { state: 'Edit', placeName: 'TestPlace', placeId: 1234567890, gameId: 9876543210 })
  })

  test('unknown action and bad payloads', async () => {
    let r = await host.call(session, 'fly')
    assert.equal(r.ok, false)
    assert.equal(r.error.code, 'UNKNOWN_ACTION')
    r = await host.call(session, 'logs', [1, 2])
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    r = await host.call(session, 'logs', { count: -1 })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    r = await host.call(session, 'logs', { levels: ['Loud'] })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    r = await host.call(session, 'query', {})
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    r = await host.call(session, 'query', { path: 'Workspace..X' })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
  })

  test('a request nested deeper than the plugin decodes is answered at once', async () => {
    // The plugin's JSON decoder stops at 128 levels (plugin/src/Json.luau):
    // the request must fail fast with INVALID_PAYLOAD, not time out.
    let deep = 1
    for (let i = 0; i < 200; i++) deep = [deep]
    const started = Date.now()
    const r = await host.call(session, 'exec', { script: 'return 1', deep }, { timeoutMs: 5000 })
    assert.equal(r.ok, false)
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    assert.match(r.error.message, /nesting too deep/)
    assert.ok(Date.now() - started < 5000)
    const again = await host.call(session, 'state')
    assert.equal(again.ok, true, 'the plugin still serves')
  })

  test('query: instance, attributes, not found with details', async () => {
    let r = await host.call(session, 'query', { path: 'game.Workspace.SpawnLocation', properties: ['Position', 'Material', 'Anchored'], includeAttributes: true })
    assert.equal(r.ok, true)
    const inst = r.payload.instance
    assert.equal(inst.className, 'SpawnLocation')
    assert.equal(inst.path, 'game.Workspace.SpawnLocation')
    assert.deepEqual(inst.properties, {
      Position: { $type: 'Vector3', value: [0, 4, 0] },
      Material: { $type: 'EnumItem', enum: 'Material', name: 'Plastic', value: 256 },
      Anchored: true,
    })
    assert.deepEqual(inst.attributes, { Team: 'Blue', Lives: 3, Offset: { $type: 'Vector3', value: [0.1, 0.5, -2] } })
    assert.equal(inst.childCount, 0)
    r = await host.call(session, 'query', { path: 'game.Workspace.NonExistent' })
    assert.equal(r.error.code, 'INSTANCE_NOT_FOUND')
    assert.equal(r.error.message, 'No instance found at path: game.Workspace.NonExistent')
    assert.deepEqual(r.error.details, { resolvedPath: 'game.Workspace', missingSegment: 'NonExistent' })
    r = await host.call(session, 'query', { path: 'Workspace.Tower', properties: ['Base'] })
    assert.equal(r.error.code, 'PROPERTY_NOT_FOUND')
    assert.deepEqual(r.error.details, { property: 'Base', className: 'Model', path: 'game.Workspace.Tower' })
  })

  test('query: depth, children, dotted names, listServices', async () => {
    let r = await host.call(session, 'query', { path: 'Workspace.Tower', depth: 1, properties: ['PrimaryPart'] })
    const tower = r.payload.instance
    assert.deepEqual(tower.properties.PrimaryPart, { $type: 'Instance', className: 'Part', path: 'game.Workspace.Tower.Base' })
    assert.deepEqual(
      tower.children.map((c) => c.path),
      ['game.Workspace.Tower.Base', 'game.Workspace.Tower["Top.Level"]'],
    )
    r = await host.call(session, 'query', { path: 'Workspace.Tower.Top\\.Level', properties: ['Position'] })
    assert.deepEqual(r.payload.instance.properties.Position, { $type: 'Vector3', value: [10, 20.25, 10] })
    r = await host.call(session, 'query', { path: 'ReplicatedStorage.Shared', children: true, properties: ['Value'] })
    assert.deepEqual(
      r.payload.children.map((c) => [c.name, c.properties.Value]),
      [
        ['Greeting', 'hello, world'],
        ['Answer', 42],
      ],
    )
    r = await host.call(session, 'query', { path: 'StarterGui.Hud.Panel', properties: ['Size'] })
    assert.deepEqual(r.payload.instance.properties.Size, { $type: 'UDim2', value: [0.5, 10, 0, 40] })
    r = await host.call(session, 'query', { path: 'ignored', listServices: true })
    const names = r.payload.services.map((s) => s.name)
    for (const n of ['Workspace', 'Lighting', 'ReplicatedStorage', 'LogService']) assert.ok(names.includes(n), n)
  })

  test('query: a path whose segment names several siblings says so (duplicates)', async () => {
    let r = await host.call(session, 'exec', {
      script: 'for i = 1, 3 do local f = Instance.new("Folder") f.Name = "Twin" f.Parent = workspace end local v = Instance.new("IntValue") v.Name = "Inner" v.Parent = workspace.Twin',
    })
    assert.equal(r.payload.success, true, r.payload.error)
    try {
      r = await host.call(session, 'query', { path: 'Workspace.Twin.Inner', properties: ['Name'] })
      assert.equal(r.payload.instance.path, 'game.Workspace.Twin.Inner')
      assert.deepEqual(r.payload.duplicates, [{ path: 'game.Workspace.Twin', count: 3 }])
      r = await host.call(session, 'query', { path: 'Workspace.Twin', children: true })
      assert.deepEqual(r.payload.duplicates, [{ path: 'game.Workspace.Twin', count: 3 }])
      r = await host.call(session, 'query', { path: 'Workspace.SpawnLocation', properties: ['Name'] })
      assert.equal(r.payload.duplicates, undefined)
    } finally {
      await host.call(session, 'exec', { script: 'while workspace:FindFirstChild("Twin") do workspace.Twin:Destroy() end' })
    }
  })

  test('query: default properties come from ReflectionService', async () => {
    const r = await host.call(session, 'query', { path: 'Workspace.SpawnLocation' })
    const props = r.payload.instance.properties
    assert.equal(props.Name, 'SpawnLocation')
    assert.equal(props.ClassName, 'SpawnLocation')
    assert.deepEqual(props.Parent, { $type: 'Instance', className: 'Workspace', path: 'game.Workspace' })
    assert.deepEqual(props.Size, { $type: 'Vector3', value: [12, 1, 12] })
    assert.deepEqual(props.BrickColor, { $type: 'BrickColor', value: 'Medium stone grey', number: 194 })
  })

  test('exec streams output in order, then answers', async () => {
    checkPlainOutput(await host.call(session, 'exec', { script: plainOutputScript }), 'edit')
  })

  test('exec: undoable says whether there is something to undo', async () => {
    const make = 'local p = Instance.new("Part") p.Name = "UndoMe" p.Parent = workspace'
    try {
      // a change: one undo step, also when the same script ran just before
      // (the step on top then has the same name)
      for (let i = 0; i < 2; i++) {
        const r = await host.call(session, 'exec', { script: make })
        assert.deepEqual(r.payload, { success: true, logs: [], undoable: true }, `run ${i + 1}`)
      }
      // reading only: nothing to undo, so no undoable at all
      let r = await host.call(session, 'exec', { script: 'return #workspace:GetChildren() > 0' })
      assert.deepEqual(r.payload, { success: true, logs: [], returnValues: [true] })
      // a change that fails halfway is still one step
      r = await host.call(session, 'exec', { script: 'workspace.UndoMe.Name = "Renamed" error("half")' })
      assert.equal(r.payload.undoable, true)
      // history = false: not recorded
      r = await host.call(session, 'exec', { script: make, history: false })
      assert.equal(r.payload.undoable, false)
    } finally {
      await host.call(session, 'exec', { script: 'for _, c in workspace:GetChildren() do if c.Name == "UndoMe" or c.Name == "Renamed" then c:Destroy() end end', history: false })
    }
  })

  test('exec: compile and runtime errors are results', async () => {
    let r = await host.call(session, 'exec', { script: 'print("before")\nlocal x = nil\nreturn x.Name' })
    assert.equal(r.ok, true)
    assert.deepEqual(r.payload, { success: false, error: "Script:3: attempt to index nil with 'Name'", traceback: 'Script:3\n', logs: [{ level: 'Print', body: 'before' }] })
    r = await host.call(session, 'exec', { script: 'return (' })
    assert.equal(r.payload.success, false)
    assert.match(r.payload.error, /^Script:1: Expected identifier/)
    r = await host.call(session, 'exec', { script: 'error({code = 1})' })
    assert.equal(r.payload.success, false)
    r = await host.call(session, 'exec', { script: 'return 1', chunkName: 'MyChunk' })
    assert.deepEqual(r.payload.returnValues, [1])
    r = await host.call(session, 'exec', { script: 'error("boom")', chunkName: 'MyChunk' })
    assert.equal(r.payload.error, 'MyChunk:1: boom')
    assert.equal(r.payload.traceback, 'MyChunk:1\n')
  })

  test('exec: the environment hides the plugin', async () => {
    const r = await host.call(session, 'exec', { script: 'return script, plugin, typeof(game), game:GetService("RunService"):IsEdit()' })
    assert.deepEqual(r.payload.returnValues, [null, null, 'Instance', true])
  })

  test('exec: a second script meanwhile is BUSY; cancel frees the slot', async () => {
    const first = host.call(session, 'exec', { script: 'task.wait(30) return "late"' })
    const firstId = session.lastRequestId
    await new Promise((r) => setTimeout(r, 100))
    const second = await host.call(session, 'exec', { script: 'return 1' })
    assert.equal(second.ok, false)
    assert.equal(second.error.code, 'BUSY')
    assert.equal(second.error.message, 'Plugin is busy executing another script.')
    host.cancel(session, firstId)
    const cancelled = await first
    assert.equal(cancelled.ok, false)
    assert.equal(cancelled.error.code, 'CANCELLED')
    const third = await host.call(session, 'exec', { script: 'return 2' })
    assert.deepEqual(third.payload.returnValues, [2])
  })

  test('exec: a cancelled script is still one undo step (History)', async () => {
    const pending = host.call(session, 'exec', { script: '-- half done\nInstance.new("Folder", workspace).Name = "HalfDone"\ntask.wait(30)' })
    const id = session.lastRequestId
    await new Promise((r) => setTimeout(r, 100))
    host.cancel(session, id)
    assert.equal((await pending).error.code, 'CANCELLED')
    const here = 'return workspace:FindFirstChild("HalfDone") ~= nil'
    assert.deepEqual((await host.call(session, 'exec', { script: here })).payload.returnValues, [true])
    assert.equal(await window.history('undo'), '-- half done')
    assert.deepEqual((await host.call(session, 'exec', { script: here })).payload.returnValues, [false])
    assert.equal(await window.history('redo'), '-- half done')
    assert.deepEqual((await host.call(session, 'exec', { script: here })).payload.returnValues, [true])
  })

  test('logs: tail, head, levels, internal', async () => {
    await window.models.get('edit').command('print', 'log-a')
    await window.models.get('edit').command('warn', 'log-b')
    await window.models.get('edit').command('error', 'log-c')
    await new Promise((r) => setTimeout(r, 50))
    let r = await host.call(session, 'logs', { count: 3 })
    assert.deepEqual(
      r.payload.entries.map((e) => [e.level, e.body]),
      [
        ['Print', 'log-a'],
        ['Warning', 'log-b'],
        ['Error', 'log-c'],
      ],
    )
    const seqs = r.payload.entries.map((e) => e.seq)
    assert.deepEqual(seqs, [seqs[0], seqs[0] + 1, seqs[0] + 2])
    assert.ok(r.payload.entries.every((e) => typeof e.timestamp === 'number' && e.timestamp > 1.6e12))
    assert.equal(r.payload.bufferCapacity, 5000)
    r = await host.call(session, 'logs', { count: 2, direction: 'head', includeInternal: true })
    assert.match(r.payload.entries[0].body, /^\[StudioBridge\]/)
    r = await host.call(session, 'logs', { count: 100, levels: ['Error'] })
    assert.deepEqual(
      r.payload.entries.map((e) => e.body),
      ['log-c'],
    )
    assert.equal(r.payload.total, 1)
  })

  test('subscribe: live log events with seq, internal lines hidden', async () => {
    const r = await host.call(session, 'subscribe', { events: ['log'] })
    assert.deepEqual(r.payload, { events: ['log', 'state'] })
    await window.models.get('edit').command('print', 'live-1')
    await window.models.get('edit').command('print', '[StudioBridge] internal')
    await window.models.get('edit').command('warn', 'live-2')
    const ev = await host.waitEvent(session, (e) => e.event === 'log' && e.payload.body === 'live-2')
    const logs = session.events.filter((e) => e.event === 'log').map((e) => e.payload.body)
    assert.deepEqual(logs.slice(-2), ['live-1', 'live-2'])
    assert.equal(ev.payload.level, 'Warning')
    assert.equal(typeof ev.seq, 'number')
    const u = await host.call(session, 'unsubscribe', { events: ['log'] })
    assert.deepEqual(u.payload, { events: ['state'] })
    const before = session.events.length
    await window.models.get('edit').command('print', 'after-unsubscribe')
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(session.events.length, before)
  })

  test('subscribe/unsubscribe bookkeeping is per subscription, whatever includeInternal says', async () => {
    const dm = window.models.get('edit')
    const logBodies = () => session.events.filter((e) => e.event === 'log').map((e) => e.payload.body)
    // emits one internal and one plain line; returns what arrived as events
    const probe = async (tag) => {
      await dm.command('print', `[StudioBridge] internal-${tag}`)
      await dm.command('print', `plain-${tag}`)
      await new Promise((r) => setTimeout(r, 100))
      return logBodies().filter((b) => b.endsWith(`-${tag}`))
    }
    // subscribed with includeInternal, unsubscribed without it: nothing left
    let r = await host.call(session, 'subscribe', { events: ['log'], includeInternal: true })
    assert.deepEqual(r.payload, { events: ['log', 'state'] })
    assert.deepEqual(await probe('a'), ['[StudioBridge] internal-a', 'plain-a'])
    r = await host.call(session, 'unsubscribe', { events: ['log'] })
    assert.deepEqual(r.payload, { events: ['state'] })
    assert.deepEqual(await probe('b'), [])
    // a plain subscription afterwards must not inherit internal lines
    await host.call(session, 'subscribe', { events: ['log'] })
    assert.deepEqual(await probe('c'), ['plain-c'])
    // the reverse: subscribed without, unsubscribed with includeInternal
    r = await host.call(session, 'unsubscribe', { events: ['log'], includeInternal: true })
    assert.deepEqual(r.payload, { events: ['state'] })
    assert.deepEqual(await probe('d'), [])
    await host.call(session, 'subscribe', { events: ['log'], includeInternal: true })
    assert.deepEqual(await probe('e'), ['[StudioBridge] internal-e', 'plain-e'])
    // two followers: the unsubscribe that names includeInternal ends that one
    await host.call(session, 'subscribe', { events: ['log'] })
    r = await host.call(session, 'unsubscribe', { events: ['log'], includeInternal: true })
    assert.deepEqual(r.payload, { events: ['log', 'state'] })
    assert.deepEqual(await probe('f'), ['plain-f'])
    r = await host.call(session, 'unsubscribe', { events: ['log'] })
    assert.deepEqual(r.payload, { events: ['state'] })
    // more unsubscribes than subscribes: nothing goes negative
    r = await host.call(session, 'unsubscribe', { events: ['log'], includeInternal: true })
    assert.deepEqual(r.payload, { events: ['state'] })
    await host.call(session, 'subscribe', { events: ['log'] })
    assert.deepEqual(await probe('g'), ['plain-g'])
    r = await host.call(session, 'unsubscribe', {})
    assert.deepEqual(r.payload, { events: ['state'] })
    assert.deepEqual(await probe('h'), [])
    // "state" alone touches no log subscription
    r = await host.call(session, 'subscribe', { events: ['state'], includeInternal: true })
    assert.deepEqual(r.payload, { events: ['state'] })
    assert.deepEqual(await probe('i'), [])
  })

  test('screenshot: chunked RGBA with the deterministic pattern', async () => {
    const r = await host.call(session, 'screenshot')
    assert.equal(r.ok, true)
    assert.ok(r.chunks >= 2, `chunks: ${r.chunks}`)
    // the 1920x1080 viewport, downscaled to fit 1024x1024 (nearest sampling)
    const { width, height, format, data } = r.payload
    assert.deepEqual([width, height, format], [1024, 576, 'rgba8'])
    const raw = Buffer.from(data, 'base64')
    assert.equal(raw.length, width * height * 4)
    for (const [x, y] of [
      [0, 0],
      [1023, 575],
      [100, 50],
      [517, 301],
    ]) {
      const o = (y * width + x) * 4
      const sx = Math.floor((x * 1920) / width)
      const sy = Math.floor((y * 1080) / height)
      assert.deepEqual([...raw.subarray(o, o + 4)], [Math.floor((sx * 255) / 1919), Math.floor((sy * 255) / 1079), (sx ^ sy) & 255, 255])
    }
  })

  test('reconnects after the socket drops, keeping its session id', async () => {
    const id = session.sessionId
    const waiting = host.waitSession()
    const t0 = Date.now()
    session.ws.terminate()
    const next = await waiting
    assert.equal(next.hello.previousSessionId, id)
    assert.equal(next.sessionId, id)
    assert.ok(Date.now() - t0 < 2000, `reconnected after ${Date.now() - t0} ms`)
    session = next
    // subscriptions do not survive a reconnect
    await window.models.get('edit').command('print', 'not-followed')
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(session.events.filter((e) => e.event === 'log').length, 0)
  })

  test('the toolbar button turns the connection off and on', async () => {
    const dm = window.models.get('edit')
    assert.equal(await dm.command('click', 'StudioBridgeToggle'), true)
    await until(() => session.closed, 3000)
    assert.ok(output.some((o) => o.message === '[StudioBridge] off: disconnected; click Bridge to connect again'))
    const waiting = host.waitSession()
    await dm.command('click', 'StudioBridgeToggle')
    session = await waiting
    assert.equal(session.hello.context, 'edit')
  })
})

describe('the settings panel', () => {
  test('changing the port moves the plugin to another host; bad input is refused', async () => {
    const first = new MiniHost()
    const second = new MiniHost()
    const port1 = await first.listen()
    const port2 = await second.listen()
    const { window } = newWindow(port1)
    const waiting = first.waitSession()
    await window.start(['edit'])
    const s1 = await waiting
    assert.equal((await first.call(s1, 'state')).ok, true) // the plugin has the welcome
    const dm = window.models.get('edit')
    assert.equal(await dm.command('click', 'StudioBridgeSettings'), true)
    assert.equal(await dm.command('widget', 'StudioBridgeSettings.Port'), String(port1))

    // out of range and non-integers are refused with a clear message; the
    // port in use stays (in the box, in the setting, on the wire)
    for (const bad of ['99999', '65536', '0', '-1', '41000.5', '4.1e4', '0x10', 'abc', '']) {
      assert.equal(await dm.command('type', `StudioBridgeSettings.Port ${bad}`), true)
      const status = String(await dm.command('widget', 'StudioBridgeSettings.Status'))
      assert.equal(status, `The port must be a whole number from 1 to 65535. Keeping port ${port1}.`, `input ${JSON.stringify(bad)}`)
      assert.equal(await dm.command('widget', 'StudioBridgeSettings.Port'), String(port1), `input ${JSON.stringify(bad)}`)
      assert.equal(window.settings.get('StudioBridgePort'), String(port1), `input ${JSON.stringify(bad)}`)
    }
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(s1.closed, false)
    assert.equal(first.hellos.length, 1, 'a refused port does not reconnect')
    assert.equal(second.hellos.length, 0)

    const moved = second.waitSession()
    await dm.command('type', `StudioBridgeSettings.Port ${port2}`)
    const s2 = await moved
    assert.equal(s2.hello.previousSessionId, s1.sessionId)
    assert.equal(window.settings.get('StudioBridgePort'), String(port2))
    await until(() => s1.closed)

    await dm.command('type', 'StudioBridgeSettings.LogCapacity 2500')
    await until(async () => (await second.call(s2, 'logs', { count: 1 })).payload.bufferCapacity === 2500)
    await window.shutdown()
    await first.close()
    await second.close()
  })
})

describe('exec in an edit window: all Output while the script runs; one environment', () => {
  // its own window: these scripts write errors to Output
  let host
  let window
  let session

  before(async () => {
    ;({ host, window, session } = await startWindow((port) => newWindow(port)))
  })

  after(async () => {
    await window.shutdown()
    await host.close()
  })

  test('exec: output of modules, loadstring chunks and spawned threads streams too, each line once', async () => {
    const r = await host.call(session, 'exec', { script: mixedOutputScript(true) })
    checkMixedOutput(r, { withLoadstring: true, immediate: false, label: 'edit' })
  })

  test('exec: Output queued just before the script ends is not lost', async () => {
    const r = await host.call(session, 'exec', {
      script: [
        '-- queued output', // named apart from the previous test's undo step
        'local m = Instance.new("ModuleScript")',
        `m.Source = 'print("last words") return function() print("deferred") end'`,
        'task.defer(require(m))',
        'return 2',
      ].join('\n'),
    })
    assert.deepEqual(r.payload, {
      success: true,
      returnValues: [2],
      logs: [
        { level: 'Print', body: 'last words' },
        { level: 'Print', body: 'deferred' },
      ],
    })
    assert.deepEqual(r.progress, r.payload.logs)
  })

  test('exec: the same text from the script and from elsewhere is kept twice', async () => {
    const r = await host.call(session, 'exec', {
      script: 'local m = Instance.new("ModuleScript")\nm.Source = \'print("same") return 0\'\nprint("same")\nrequire(m)\nprint("same")\nreturn 0',
    })
    assert.deepEqual(r.payload.logs, [
      { level: 'Print', body: 'same' },
      { level: 'Print', body: 'same' },
      { level: 'Print', body: 'same' },
    ])
  })

  test('exec: globals persist between execs, locals do not (as in the command bar)', async () => {
    await checkPersistentGlobals(host, session, 'edit')
  })
})

describe('exec with immediate signals (Workspace.SignalBehavior = Immediate)', () => {
  let host
  let window

  before(async () => {
    ;({ host, window } = await startPlayWindow({ instance: 'WIN-IMMEDIATE', signalBehavior: 'Immediate' }))
  })

  after(async () => {
    await window.shutdown()
    await host.close()
  })

  test('MessageOut inside print: every line once, in print order', async () => {
    for (const [c, withLoadstring] of [
      ['edit', true],
      ['server', false],
    ]) {
      const s = await host.sessionFor(c)
      const r = await host.call(s, 'exec', { script: mixedOutputScript(withLoadstring) })
      checkMixedOutput(r, { withLoadstring, immediate: true, label: c })
      checkPlainOutput(await host.call(s, 'exec', { script: plainOutputScript }), c)
    }
  })

  test('the ModuleScript compile path still reports compile errors, with no output', async () => {
    const s = await host.sessionFor('server')
    const r = await host.call(s, 'exec', { script: 'print("fine")\nreturn (' })
    assert.equal(r.payload.success, false)
    assert.match(r.payload.error, /^Script:\d+: Expected/)
    assert.deepEqual(r.payload.logs, [])
  })

  test('globals persist', async () => {
    for (const c of ['edit', 'client']) await checkPersistentGlobals(host, await host.sessionFor(c), c)
  })
})

describe('Play mode: three DataModels, one window', () => {
  let host
  let window
  let output

  before(async () => {
    ;({ host, window, output } = await startPlayWindow({ instance: 'WIN-PLAY' }))
  })

  after(async () => {
    await window.shutdown()
    await host.close()
  })

  test('all three share the window id and report Play', async () => {
    for (const c of ['edit', 'server', 'client']) {
      const s = await host.sessionFor(c)
      assert.equal(s.hello.instanceId, 'WIN-PLAY', c)
      const r = await host.call(s, 'state')
      assert.equal(r.payload.state, 'Play', c)
    }
  })

  test('exec runs in each context (ModuleScript fallback without loadstring)', async () => {
    for (const [c, expected] of [
      ['edit', [true, false]],
      ['server', [true, false]],
      ['client', [false, true]],
    ]) {
      const s = await host.sessionFor(c)
      const r = await host.call(s, 'exec', {
        script: 'local rs = game:GetService("RunService")\nreturn rs:IsServer(), game:GetService("Players").LocalPlayer ~= nil',
      })
      assert.deepEqual(r.payload.returnValues, expected, c)
      const bad = await host.call(s, 'exec', { script: 'local a = 1\nreturn a.b.c' })
      assert.equal(bad.payload.success, false)
      assert.match(bad.payload.error, /^Script:2: attempt to index/, c)
    }
  })

  test('exec through a ModuleScript: compile and runtime errors are results, as with loadstring', async () => {
    const edit = await host.sessionFor('edit') // loadstring
    for (const c of ['server', 'client']) {
      const s = await host.sessionFor(c)
      // the fallback really is in use: loadstring is not available here
      const probe = await host.call(s, 'exec', { script: 'return (pcall(loadstring, "return 1"))' })
      assert.deepEqual(probe.payload.returnValues, [false], c)
      for (const [script, chunkName] of [
        ['local = 1', undefined],
        ['print("fine")\nreturn (', undefined],
        ['local x = 1 +', 'MyChunk'],
      ]) {
        const payload = chunkName ? { script, chunkName } : { script }
        const viaModule = await host.call(s, 'exec', payload)
        const viaLoadstring = await host.call(edit, 'exec', payload)
        assert.equal(viaModule.ok, true, c)
        assert.equal(viaModule.payload.success, false, `${c}: ${script}`)
        assert.match(viaModule.payload.error, new RegExp(`^${chunkName || 'Script'}:\\d+: Expected`), `${c}: ${script}`)
        assert.deepEqual(viaModule.payload.logs, [], `${c}: nothing ran`)
        // line 1 errors read the same as loadstring's; an error at the very
        // end is reported against the added "end" on the next line
        if (!script.includes('\n') && chunkName === undefined) assert.equal(viaModule.payload.error, viaLoadstring.payload.error, `${c}: ${script}`)
      }
      let r = await host.call(s, 'exec', { script: 'print("before")\nwarn("careful")\nerror("boom")' })
      assert.deepEqual(r.payload, {
        success: false,
        error: 'Script:3: boom',
        traceback: 'Script:3\n',
        logs: [
          { level: 'Print', body: 'before' },
          { level: 'Warning', body: 'careful' },
        ],
      })
      assert.deepEqual(r.progress, r.payload.logs, c)
      r = await host.call(s, 'exec', { script: 'local t = nil\nreturn t.x', chunkName: 'Mod' })
      assert.deepEqual(r.payload, { success: false, error: "Mod:2: attempt to index nil with 'x'", traceback: 'Mod:2\n', logs: [] }, c)
      r = await host.call(s, 'exec', { script: 'error({code = 1})' })
      assert.equal(r.payload.success, false, c)
      assert.equal(typeof r.payload.error, 'string', c)
    }
  })

  test('exec through a ModuleScript: other output streams too; globals persist', async () => {
    for (const c of ['server', 'client']) {
      const s = await host.sessionFor(c)
      const r = await host.call(s, 'exec', { script: mixedOutputScript(false) })
      checkMixedOutput(r, { withLoadstring: false, immediate: false, label: c })
      await checkPersistentGlobals(host, s, c)
    }
  })

  test('exec through a ModuleScript: cancel stops the script at its next yield', async () => {
    for (const c of ['server', 'client']) {
      const s = await host.sessionFor(c)
      const marker = `after-cancel-${c}`
      const running = host.call(s, 'exec', { script: `print("started")\ntask.wait(0.4)\nprint("${marker}")\nreturn 1` })
      const id = s.lastRequestId
      await until(() => output.some((o) => o.context === c && o.message === 'started'), 3000)
      host.cancel(s, id)
      const r = await running
      assert.equal(r.ok, false, c)
      assert.equal(r.error.code, 'CANCELLED', c)
      assert.equal(r.error.message, 'exec cancelled')
      assert.deepEqual(r.progress, [{ level: 'Print', body: 'started' }], c)
      // the script never resumes after its wait
      await new Promise((res) => setTimeout(res, 700))
      assert.equal(
        output.filter((o) => o.message === marker).length,
        0,
        `${c}: the cancelled script went on running`,
      )
      assert.equal(
        s.frames.filter((f) => f.id === id && f.type === 'response').length,
        1,
        `${c}: exactly one answer for the cancelled request`,
      )
      // and the exec slot is free
      const next = await host.call(s, 'exec', { script: 'return 2' })
      assert.deepEqual(next.payload.returnValues, [2], c)
      output.splice(0, output.length)
    }
  })

  test('contexts see their own DataModel', async () => {
    const server = await host.sessionFor('server')
    const client = await host.sessionFor('client')
    let r = await host.call(server, 'query', { path: 'ServerStorage.ServerOnly', properties: ['Value'] })
    assert.equal(r.payload.instance.properties.Value, true)
    r = await host.call(client, 'query', { path: 'ServerStorage.ServerOnly' })
    assert.equal(r.error.code, 'INSTANCE_NOT_FOUND')
    r = await host.call(client, 'query', { path: 'Workspace.ClientOnly' })
    assert.equal(r.ok, true)
  })

  test('screenshot fails clearly on the server', async () => {
    const r = await host.call(await host.sessionFor('server'), 'screenshot')
    assert.equal(r.error.code, 'SCREENSHOT_FAILED')
    assert.match(r.error.message, /server DataModel has no viewport/)
  })

  test('pause and resume push state events', async () => {
    const server = await host.sessionFor('server')
    await window.setRunState('Paused')
    await host.waitEvent(server, (e) => e.event === 'state' && e.payload.state === 'Paused', 4000)
    const edit = await host.sessionFor('edit')
    await host.waitEvent(edit, (e) => e.event === 'state' && e.payload.state === 'Paused', 6000)
    await window.setRunState('Running')
    await host.waitEvent(server, (e) => e.event === 'state' && e.payload.state === 'Play' && server.events.indexOf(e) > 0, 4000)
  })

  test('stopping Play closes the server and client sessions; edit goes back to Edit', async () => {
    const edit = await host.sessionFor('edit')
    await window.stopPlay()
    await until(() => host.sessions.filter((s) => !s.closed).length === 1, 5000)
    await host.waitEvent(edit, (e) => e.event === 'state' && e.payload.state === 'Edit', 10000)
  })
})

// Studio reloads the plugin (an update, or the user's reload) while Play
// runs: the old copy's PluginConnection bindings must go on Unloading, or
// the new copy cannot bind (one callback per plugin, engine reference).
describe('a plugin reload in the edit DataModel during Play', () => {
  const live = (host, context, notOn) => host.sessions.find((x) => !x.closed && x.hello.context === context && x.socket !== notOn)

  test('the new copy binds again and the relay carries the same server and client sessions', async () => {
    const { host, window, output, stop } = await startPlayWindow({ instance: 'WIN-RELOAD' })
    const server = await host.sessionFor('server')
    const client = await host.sessionFor('client')
    await window.reloadPlugin('edit')
    const movedServer = await until(() => live(host, 'server', server.socket), 20000)
    const movedClient = await until(() => live(host, 'client', client.socket), 20000)
    assert.equal(movedServer.sessionId, server.sessionId, 'the server session keeps its id')
    // the client is registered again over the new socket too (its id is not
    // always kept yet: see the plugin README's known limitations)
    assert.equal(movedServer.socket, live(host, 'edit', server.socket).socket, 'relayed over the new edit socket')
    assert.equal(movedClient.socket, movedServer.socket)
    assert.deepEqual((await host.call(movedServer, 'exec', { script: 'return 1' })).payload.returnValues, [1])
    assert.deepEqual((await host.call(movedClient, 'state')).payload.state, 'Play')
    assert.deepEqual(output.filter((o) => o.message.includes('could not listen')), [])
    await stop()
  })

  test('one bind that fails costs that connection only: warned once, and the next Play is relayed', async () => {
    const { host, window, output, stop } = await startPlayWindow({ instance: 'WIN-BINDFAIL' })
    const client = await host.sessionFor('client')
    window.faults.add('pc-bind-fail:edit') // the reloaded copy's first bind fails
    await window.reloadPlugin('edit')
    await until(() => output.some((o) => o.type === 'MessageWarning' && o.message.includes('could not listen to a Play DataModel')), 20000)
    // the other connection was bound all the same
    await until(() => live(host, 'client', client.socket), 20000)
    await window.stopPlay()
    await until(() => host.sessions.filter((x) => !x.closed).length === 1, 20000)
    await window.play()
    // a client cannot reach localhost: it registers only through the relay
    const next = await until(() => host.sessions.find((x) => !x.closed && x.hello.context === 'client' && x.sessionId !== client.sessionId), 20000)
    assert.equal(next.socket, live(host, 'edit').socket)
    assert.equal(output.filter((o) => o.message.includes('could not listen')).length, 1)
    await stop()
  })
})

describe('a host that rejects the plugin', () => {
  test('the reject message is warned once, prefixed, and the plugin keeps quiet', async () => {
    const host = new MiniHost({ reject: { code: 'UNSUPPORTED_PROTOCOL', message: 'run studio-bridge install-plugin' } })
    const port = await host.listen()
    const { window, output } = newWindow(port)
    await window.start(['edit'])
    await until(() => host.hellos.length >= 1, 5000)
    await new Promise((r) => setTimeout(r, 500))
    const shown = output.filter((o) => o.message.includes('run studio-bridge install-plugin'))
    assert.deepEqual(shown, [{ context: 'edit', type: 'MessageWarning', message: '[StudioBridge] studio-bridge refused this plugin: run studio-bridge install-plugin' }])
    assert.equal(host.hellos.length, 1, 'no immediate retry after a reject')
    // the same host stays: the plugin does not ask again
    await new Promise((r) => setTimeout(r, 5500))
    assert.equal(host.hellos.length, 1, 'no retry while the rejecting host is unchanged')
    assert.equal(output.filter((o) => o.message.includes('refused this plugin')).length, 1, 'warned once')
    // a different host version (an upgraded host) is tried again
    host.reject = null
    host.health.version = '0.0.2-upgraded'
    await host.waitSession(8000)
    assert.equal(host.hellos.length, 2)
    await window.shutdown()
    await host.close()
  })

  test('a host that answers with another protocol version is refused, naming install-plugin', async () => {
    const host = new MiniHost({ welcome: { protocolVersion: 1, sessionId: 'v1-session' } })
    const port = await host.listen()
    const { window, output } = newWindow(port)
    await window.start(['edit'])
    await until(() => output.some((o) => o.type === 'MessageWarning' && o.message.includes('refused this plugin')), 5000)
    const shown = output.filter((o) => o.message.includes('refused this plugin'))
    assert.equal(shown.length, 1)
    assert.match(shown[0].message, /answered with plugin protocol version 1, but this plugin speaks only version 2; install the plugin that matches your studio-bridge with `studio-bridge install-plugin`/)
    // nothing of a session was sent on that socket, and the plugin does not ask again
    await new Promise((r) => setTimeout(r, 1000))
    assert.deepEqual(host.sockets.flatMap((s) => s.frames.map((f) => f.type)), ['hello'])
    assert.equal(host.hellos.length, 1)
    await window.shutdown()
    await host.close()
  })
})

describe('faults', () => {
  test('refused streams: the plugin backs off and connects when allowed', async () => {
    const { output, session: s, stop } = await startEditWindow({ faults: ['refuse-stream:1'] }, 12000)
    assert.equal(s.hello.context, 'edit')
    assert.ok(output.some((o) => o.message.includes('could not open a WebSocket')))
    await stop()
  })

  test('drop mid-request: the call fails, the plugin comes back with its session id', async () => {
    const { host, session: s, stop } = await startEditWindow({ faults: ['drop:exec'] })
    const again = host.waitSession()
    await assert.rejects(host.call(s, 'exec', { script: 'task.wait(1) return 1' }), /socket closed/)
    const s2 = await again
    assert.equal(s2.sessionId, s.sessionId)
    const r = await host.call(s2, 'exec', { script: 'return 2' })
    assert.deepEqual(r.payload.returnValues, [2])
    await stop()
  })

  test('stall: nothing answers while the DataModel is frozen, then it catches up', async () => {
    const { host, session: s, stop } = await startEditWindow({ faults: ['stall:state:1'] })
    const t0 = Date.now()
    const r = await host.call(s, 'state')
    assert.equal(r.ok, true)
    assert.ok(Date.now() - t0 >= 900, `answered after ${Date.now() - t0} ms`)
    await stop()
  })

  test('screenshot faults become SCREENSHOT_FAILED', async () => {
    const { host, session: s, stop } = await startEditWindow({ faults: ['screenshot:error'] })
    const r = await host.call(s, 'screenshot')
    assert.equal(r.error.code, 'SCREENSHOT_FAILED')
    assert.match(r.error.message, /not enough memory budget/)
    await stop()
  })

  test('a log flood keeps flowing while requests are answered', async () => {
    const { host, session: s, stop } = await startEditWindow({ faults: ['log-flood:400'] })
    await host.call(s, 'subscribe', { events: ['log'] })
    await new Promise((r) => setTimeout(r, 600))
    const t0 = Date.now()
    const r = await host.call(s, 'state')
    assert.equal(r.ok, true)
    assert.ok(Date.now() - t0 < 1000)
    const seqs = s.events.filter((e) => e.event === 'log').map((e) => e.seq)
    assert.ok(seqs.length > 50, `only ${seqs.length} log events`)
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, 'no gaps in seq')
    await stop()
  })
})

// A lone client DataModel with no PluginConnectionService to an edit
// DataModel connects on its own, where it can reach localhost at all
// (--client-localhost).
describe('a client DataModel, where HttpService cannot make requests', () => {
  // A loopback port nothing listens on (it was free a moment ago).
  async function closedPort() {
    const probe = new MiniHost()
    const port = await probe.listen()
    await probe.close()
    return port
  }

  // WebSocket attempts the client makes in `ms`, starting after the first.
  async function attemptsOver(dm, ms) {
    const start = dm.netAttempts.ws
    await new Promise((r) => setTimeout(r, ms))
    return dm.netAttempts.ws - start
  }

  test('RequestAsync fails there as in Studio; the plugin connects over the WebSocket directly', async () => {
    const { host, window, session: s, stop } = await startWindow(
      (port) => newWindow(port, { clientLocalhost: true, pluginConnectionService: false }),
      { contexts: ['client'], waitMs: 15000 },
    )
    const dm = window.models.get('client')
    assert.equal(s.hello.context, 'client')
    assert.equal(host.healthRequests, 0, 'no /health probe from a client')
    assert.equal(dm.netAttempts.http, 0)
    assert.equal(dm.netAttempts.ws, 1, 'connected at the first attempt')
    const r = await host.call(s, 'exec', {
      script: 'return pcall(function() return game:GetService("HttpService"):RequestAsync({Url = "http://127.0.0.1:1/health"}) end)',
    })
    assert.equal(r.payload.returnValues[0], false)
    assert.match(r.payload.returnValues[1], /Http requests can only be executed by game server$/)
    await stop()
  })

  test('with no host it retries every 2 s, not in a loop, and connects once a host appears', async () => {
    const port = await closedPort()
    const { window, output } = newWindow(port, { clientLocalhost: true, pluginConnectionService: false })
    await window.start(['client'])
    const dm = window.models.get('client')
    await until(() => dm.netAttempts.ws >= 1, 8000) // after the window-registry wait
    const n = await attemptsOver(dm, 4500)
    assert.ok(n >= 1 && n <= 3, `${n} WebSocket attempts in 4.5 s against a closed port`)
    assert.equal(dm.netAttempts.http, 0)
    assert.equal(output.filter((o) => o.message.includes('could not open a WebSocket')).length, 0)
    const host = new MiniHost()
    await host.listen(port)
    const s = await host.waitSession(5000)
    assert.equal(s.hello.context, 'client')
    await window.shutdown()
    await host.close()
  })

  test('after losing its host it backs off (250 ms, 500 ms, 1 s, then 2 s) and keeps its session id', async () => {
    let host = new MiniHost()
    const port = await host.listen()
    const { window } = newWindow(port, { clientLocalhost: true, pluginConnectionService: false })
    const waiting = host.waitSession(15000)
    await window.start(['client'])
    const s = await waiting
    const dm = window.models.get('client')
    await host.close()
    await until(() => dm.netAttempts.ws >= 2, 3000)
    const n = await attemptsOver(dm, 4000)
    // 0.5 + 1 + 2 s: about 3 attempts in 4 s; a spinning plugin makes hundreds
    assert.ok(n >= 2 && n <= 5, `${n} WebSocket attempts in 4 s after the host went away`)
    host = new MiniHost()
    await host.listen(port)
    const back = await host.waitSession(5000)
    assert.equal(back.hello.previousSessionId, s.sessionId)
    assert.equal(host.healthRequests, 0)
    await window.shutdown()
    await host.close()
  })
})

describe('a host that stops answering', () => {
  test('the plugin drops a silent link after three heartbeat intervals and reconnects with its session id', async () => {
    const host = new MiniHost({ welcome: { heartbeatIntervalMs: 200 } })
    const port = await host.listen()
    const { window } = newWindow(port)
    const first = host.waitSession(10000)
    await window.start(['edit'])
    const s = await first
    await until(() => s.pings >= 1, 2000) // it pings every interval while the host answers
    host.silent = true
    const went = Date.now()
    await until(() => s.closed, 3000)
    const after = Date.now() - went
    // three 200 ms intervals of silence, give or take a ping period
    assert.ok(after >= 400 && after <= 2000, `dropped the silent link after ${after} ms`)
    host.silent = false
    const back = await host.waitSession(5000)
    assert.equal(back.hello.previousSessionId, s.sessionId)
    await window.shutdown()
    await host.close()
  })
})

describe('the Bridge toolbar button', () => {
  test('is lit exactly while the edit session is connected', async () => {
    let host = new MiniHost()
    const port = await host.listen()
    const { window } = newWindow(port)
    const changes = []
    window.uiListeners.push((context, kind, id, state) => {
      if (kind === 'button' && id === 'StudioBridgeToggle') changes.push(state)
    })
    const waiting = host.waitSession()
    await window.start(['edit'])
    let s = await waiting
    const dm = window.models.get('edit')
    const lit = () => dm.command('button', 'StudioBridgeToggle')
    await until(async () => (await lit()) === 'active', 2000)
    assert.equal(await dm.command('button', 'StudioBridgeSettings'), 'inactive')

    // the host goes away: dark; a host comes back: lit again
    await host.close()
    await until(async () => (await lit()) === 'inactive', 3000)
    host = new MiniHost()
    await host.listen(port)
    s = await host.waitSession(5000)
    await until(async () => (await lit()) === 'active', 2000)

    // a dropped socket: dark until the plugin is back
    const again = host.waitSession(5000)
    s.ws.terminate()
    await until(async () => (await lit()) === 'inactive', 2000)
    s = await again
    await until(async () => (await lit()) === 'active', 2000)

    // the user turns the bridge off: dark, and it stays dark
    await dm.command('click', 'StudioBridgeToggle')
    await until(() => s.closed, 3000)
    assert.equal(await lit(), 'inactive')
    await new Promise((r) => setTimeout(r, 2500))
    assert.equal(await lit(), 'inactive')
    // and on again: lit once connected
    const on = host.waitSession(5000)
    await dm.command('click', 'StudioBridgeToggle')
    await on
    await until(async () => (await lit()) === 'active', 2000)
    assert.deepEqual(changes, ['active', 'inactive', 'active', 'inactive', 'active', 'inactive', 'active'])
    await window.shutdown()
    await host.close()
  })
})
