// Studio's documented limits, which the emulator enforces by default
// (README, "Studio's limits"): one test per switch.

import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { parseFault } from '../src/faults.mjs'
import { DEFAULT_MAX_STREAMS, DEFAULT_STREAM_LIFETIME, Window } from '../src/window.mjs'
import { MiniHost, until } from './helpers/minihost.mjs'

const windows = []
async function open(contexts, options = {}) {
  const window = new Window({ noPlugin: true, quiet: true, ...options })
  windows.push(window)
  await window.start(contexts)
  const ev = async (context, code) => String(await window.models.get(context).command('eval', code))
  return { window, ev }
}
after(async () => {
  for (const w of windows) await w.shutdown()
})

const host = new MiniHost()
const hostPort = await host.listen()
after(() => host.close())
const wsUrl = `ws://127.0.0.1:${hostPort}/plugin`

// Opens a stream from the command bar; returns "ok" or the error message.
const openStream = (name) =>
  `local ok, r = pcall(function() return game:GetService("HttpService"):CreateWebStreamClient(Enum.WebStreamClientType.WebSocket, {Url = "${wsUrl}"}) end)
   if ok then shared["${name}"] = r
     r.Error:Connect(function(code, message) shared["${name}:error"] = message end)
     r.Closed:Connect(function() shared["${name}:closed"] = true end)
     return "ok" end
   return r`

describe('--max-streams: WebStreamClients per Studio process, shared by its DataModels', () => {
  test('the default is 4', () => {
    assert.equal(DEFAULT_MAX_STREAMS, 4)
    assert.equal(DEFAULT_STREAM_LIFETIME, 1800)
  })

  test('beyond the cap CreateWebStreamClient raises, in any DataModel; closing one frees a slot', async () => {
    const { ev } = await open(['edit', 'server'], { maxStreams: 2 })
    assert.equal(await ev('edit', openStream('a')), 'true\tok')
    assert.equal(await ev('server', openStream('b')), 'true\tok')
    assert.match(await ev('edit', openStream('c')), /too many open WebStreamClients \(this Studio process allows 2\)/)
    assert.match(await ev('server', openStream('c')), /too many open WebStreamClients/)
    await ev('edit', 'shared.a:Close()')
    assert.equal(await ev('server', openStream('d')), 'true\tok')
  })
})

describe('--stream-lifetime: Studio ends every stream after a while', () => {
  test('the stream fails (Error) once its lifetime is over', async () => {
    const { ev } = await open(['edit'], { streamLifetime: 0.4 })
    assert.equal(await ev('edit', openStream('s')), 'true\tok')
    await until(async () => (await ev('edit', 'return shared.s.ConnectionState.Name')) === 'true\tOpen', 3000)
    await until(async () => (await ev('edit', 'return shared.s.ConnectionState.Name')) === 'true\tError', 3000)
    assert.match(await ev('edit', 'return shared["s:error"]'), /^true\t.+/)
  })
})

describe('a Play client DataModel cannot reach localhost', () => {
  test('by default its stream to 127.0.0.1 fails with Error', async () => {
    const { ev } = await open(['client'])
    assert.equal(await ev('client', openStream('x')), 'true\tok')
    await until(async () => (await ev('client', 'return shared.x.ConnectionState.Name')) === 'true\tError', 3000)
    assert.match(await ev('client', 'return shared["x:error"]'), /cannot connect to localhost/)
  })

  test('--client-localhost lets it', async () => {
    const { ev } = await open(['client'], { clientLocalhost: true })
    assert.equal(await ev('client', openStream('y')), 'true\tok')
    await until(async () => (await ev('client', 'return shared.y.ConnectionState.Name')) === 'true\tOpen', 3000)
  })
})

describe('PluginConnectionService between the edit DataModel and its test DataModels', () => {
  test('connection types, late connect, ordered messages, disconnect when Play stops', async () => {
    const { window, ev } = await open(['edit', 'server'])
    const Edit = 'Enum.PluginConnectionTargetType.Edit'
    const Test = 'Enum.PluginConnectionTargetType.Test'
    const svc = 'game:GetService("PluginConnectionService")'
    assert.equal(await ev('edit', `return ${svc}:CanHaveConnectionType(${Test}), ${svc}:CanHaveConnectionType(${Edit})`), 'true\ttrue\tfalse')
    assert.equal(await ev('server', `return ${svc}:CanHaveConnectionType(${Edit}), ${svc}:CanHaveConnectionType(${Test})`), 'true\ttrue\tfalse')
    await until(async () => (await ev('server', `return #${svc}:GetPluginConnectionsOfType(${Edit})`)) === 'true\t1', 3000)
    assert.equal(await ev('edit', `return #${svc}:GetPluginConnectionsOfType(${Test})`), 'true\t1')
    await ev('edit', `shared.got = {} local c = ${svc}:GetPluginConnectionsOfType(${Test})[1] shared.conn = c c:BindToMessage(function(m) table.insert(shared.got, m) end)`)
    assert.equal(
      await ev('server', `local c = ${svc}:GetPluginConnectionsOfType(${Edit})[1] for i = 1, 5 do c:SendMessage("m" .. i) end return c.Connected, c.Type.Name, typeof(c.TargetId)`),
      'true\ttrue\tEdit\tstring',
    )
    await until(async () => (await ev('edit', 'return table.concat(shared.got, ",")')) === 'true\tm1,m2,m3,m4,m5', 3000)
    assert.match(await ev('server', `return pcall(function() ${svc}:GetPluginConnectionsOfType(${Edit})[1]:SendMessage(string.rep("x", 1024 * 1024 + 1)) end)`), /too large/)
    await window.stopModel('server')
    await until(async () => (await ev('edit', 'return shared.conn.Connected')) === 'true\tfalse', 3000)
    assert.equal(await ev('edit', `return #${svc}:GetPluginConnectionsOfType(${Test})`), 'true\t0')
    assert.match(await ev('edit', 'return pcall(function() shared.conn:SendMessage("late") end)'), /connection is closed/)
  })

  // engine reference, PluginConnection:BindToMessage: messages received
  // before the bind are buffered and delivered when it comes; each plugin
  // may bind only one callback at a time
  test('one BindToMessage per plugin at a time; messages before the bind are buffered', async () => {
    const { ev } = await open(['edit', 'server'])
    const svc = 'game:GetService("PluginConnectionService")'
    const conn = (side) => `${svc}:GetPluginConnectionsOfType(Enum.PluginConnectionTargetType.${side})[1]`
    await until(async () => (await ev('server', `return ${conn('Edit')} ~= nil`)) === 'true\ttrue', 3000)
    await until(async () => (await ev('edit', `return ${conn('Test')} ~= nil`)) === 'true\ttrue', 3000)
    await ev('server', `local c = ${conn('Edit')} c:SendMessage("early1") c:SendMessage("early2")`)
    await ev('edit', `shared.got = {} shared.b1 = ${conn('Test')}:BindToMessage(function(m) table.insert(shared.got, m) end)`)
    await ev('server', `${conn('Edit')}:SendMessage("late")`)
    await until(async () => (await ev('edit', 'return table.concat(shared.got, ",")')) === 'true\tearly1,early2,late', 3000)
    assert.match(
      await ev('edit', `return pcall(function() ${conn('Test')}:BindToMessage(function() end) end)`),
      /^true\tfalse\t.*each plugin may bind only one at a time/,
    )
    // once the first binding is disconnected another may bind
    assert.equal(await ev('edit', `shared.b1:Disconnect() shared.b2 = ${conn('Test')}:BindToMessage(function(m) table.insert(shared.got, "b2:" .. m) end) return shared.b2.Connected`), 'true\ttrue')
    await ev('server', `${conn('Edit')}:SendMessage("again")`)
    await until(async () => (await ev('edit', 'return shared.got[#shared.got]')) === 'true\tb2:again', 3000)
  })

  test('faults: pc-drop-unbound drops unbound messages; pc-bind-fail refuses a bind', async () => {
    assert.throws(() => parseFault('pc-bind-fail:player'), /want pc-bind-fail/)
    assert.deepEqual(parseFault('pc-bind-fail:edit:2'), { kind: 'pc-bind-fail', context: 'edit', remaining: 2 })
    const { ev } = await open(['edit', 'server'], { faults: ['pc-drop-unbound', 'pc-bind-fail:edit'] })
    const svc = 'game:GetService("PluginConnectionService")'
    const conn = (side) => `${svc}:GetPluginConnectionsOfType(Enum.PluginConnectionTargetType.${side})[1]`
    await until(async () => (await ev('server', `return ${conn('Edit')} ~= nil`)) === 'true\ttrue', 3000)
    await until(async () => (await ev('edit', `return ${conn('Test')} ~= nil`)) === 'true\ttrue', 3000)
    await ev('server', `${conn('Edit')}:SendMessage("lost")`)
    const bind = `shared.got = shared.got or {} return pcall(function() ${conn('Test')}:BindToMessage(function(m) table.insert(shared.got, m) end) end)`
    assert.match(await ev('edit', bind), /^true\tfalse\t.*emulated fault pc-bind-fail/)
    assert.equal(await ev('edit', bind), 'true\ttrue')
    await ev('server', `${conn('Edit')}:SendMessage("kept")`)
    await until(async () => (await ev('edit', 'return table.concat(shared.got, ",")')) === 'true\tkept', 3000)
  })

  test('--no-plugin-connection-service: an older Studio has none', async () => {
    const { ev } = await open(['edit'], { pluginConnectionService: false })
    assert.match(await ev('edit', 'return pcall(function() return game:GetService("PluginConnectionService") end)'), /'PluginConnectionService' is not a valid Service name/)
    assert.equal(await ev('edit', 'return game:FindService("PluginConnectionService")'), 'true\tnil')
  })
})

describe('plugin settings: one store shared by all local plugins, per key', () => {
  test('settings-nil:<rate> makes GetSetting answer nil at that rate', async () => {
    assert.throws(() => parseFault('settings-nil:1.5'), /want settings-nil:<rate from 0 to 1>/)
    assert.deepEqual(parseFault('settings-nil:1:StudioBridgeWindows'), { kind: 'settings-nil', rate: 1, key: 'StudioBridgeWindows' })
    const { window } = await open(['edit'], { pluginSettings: { Port: 41000 }, faults: ['settings-nil:0.5'] })
    let nils = 0
    for (let i = 0; i < 400; i++) if (window.getSetting('StudioBridgePort') === undefined) nils += 1
    assert.ok(nils > 120 && nils < 280, `${nils} nil reads of 400 at rate 0.5`)
    assert.equal(window.settings.get('StudioBridgePort'), '41000', 'the value is still stored')
    window.faults.clear()
    window.faults.add('settings-nil:1:OtherKey')
    assert.equal(window.getSetting('StudioBridgePort'), '41000', 'with a key, only that key reads nil')
  })

  test('two windows on one file: each SetSetting changes only its key; reads see the other window', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'settings-'))
    after(() => rmSync(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'settings.json')
    writeFileSync(file, JSON.stringify({ OtherPlugin: 'keep me' }))
    const a = (await open(['edit'], { settingsFile: file, port: 41001 })).window
    const b = (await open(['edit'], { settingsFile: file, pluginSettings: { LogCapacity: 300 } })).window
    a.setSetting('StudioBridgeWindows', '"from a"')
    b.setSetting('StudioBridgeEnabled', 'false')
    assert.equal(a.getSetting('StudioBridgeEnabled'), 'false', 'a re-reads the file')
    assert.equal(b.getSetting('StudioBridgeWindows'), '"from a"')
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
      OtherPlugin: 'keep me',
      StudioBridgePort: 41001,
      StudioBridgeLogCapacity: 300,
      StudioBridgeWindows: 'from a',
      StudioBridgeEnabled: false,
    })
  })
})

describe('--fault http-denied: the user said no to the HTTP permission prompt', () => {
  test('RequestAsync and CreateWebStreamClient fail', async () => {
    assert.throws(() => parseFault('http-denied:1'), /takes no argument/)
    const { ev } = await open(['edit'], { faults: ['http-denied'] })
    await ev('edit', `task.spawn(function() shared.http = {pcall(function() return game:GetService("HttpService"):RequestAsync({Url = "http://127.0.0.1:${hostPort}/health"}) end)} end)`)
    await until(async () => (await ev('edit', 'return shared.http ~= nil')) === 'true\ttrue', 3000)
    assert.match(await ev('edit', 'return shared.http[1], shared.http[2]'), /^true\tfalse\t.*HttpError: Http requests are not allowed/)
    assert.match(await ev('edit', openStream('denied')), /Http requests are not allowed/)
    assert.equal(host.healthRequests, 0, 'nothing reached the host')
  })
})

describe('screenshots: --viewport, the 1024 px EditableImage limit, image-budget, only the rendering DataModel', () => {
  // captures with CaptureService and reads the size / the error / nil
  const viaCaptureService = `task.spawn(function()
      shared.shot = nil
      local ok, r = pcall(function()
        local id
        game:GetService("CaptureService"):CaptureScreenshot(function(c) id = c end)
        local waited = 0
        while id == nil and waited < 1 do waited += task.wait(0.05) end
        if id == nil then return "no capture" end
        local image = game:GetService("AssetService"):CreateEditableImageAsync(Content.fromUri(id))
        if image == nil then return "nil image" end
        return image.Size.X .. "x" .. image.Size.Y
      end)
      shared.shot = tostring(ok) .. " " .. tostring(r)
    end)`
  const result = async (ev, context) => {
    await until(async () => (await ev(context, 'return shared.shot ~= nil')) === 'true\ttrue', 5000)
    return (await ev(context, 'return shared.shot')).replace(/^true\t/, '')
  }

  test('the default viewport is 1920x1080, too large for an EditableImage', async () => {
    const { ev } = await open(['edit'])
    await ev('edit', viaCaptureService)
    assert.match(await result(ev, 'edit'), /^false .*size 1920x1080 exceeds the maximum of 1024x1024/)
  })

  test('--viewport sets it; image-budget makes creation return nil', async () => {
    const { window, ev } = await open(['edit'], { viewport: { width: 800, height: 600 } })
    await ev('edit', viaCaptureService)
    assert.equal(await result(ev, 'edit'), 'true 800x600')
    window.faults.add('image-budget')
    await ev('edit', viaCaptureService)
    assert.equal(await result(ev, 'edit'), 'true nil image')
  })

  test('in Play only the client renders: the edit DataModel never gets a capture', async () => {
    const { ev } = await open(['edit', 'server', 'client'], { viewport: { width: 640, height: 360 } })
    await ev('client', viaCaptureService)
    assert.equal(await result(ev, 'client'), 'true 640x360')
    await ev('edit', viaCaptureService)
    assert.equal(await result(ev, 'edit'), 'true no capture')
    const can = 'return game:GetService("StudioCaptureService"):CanCaptureScreenshot()'
    assert.equal(await ev('edit', can), 'true\tfalse')
    assert.equal(await ev('client', can), 'true\ttrue')
    assert.equal(await ev('server', can), 'true\tfalse')
  })

  test('StudioCaptureService Format: RGBA8 when omitted; --fault capture-png makes an omitted Format give PNG bytes', async () => {
    const capture = `task.spawn(function()
        local svc = game:GetService("StudioCaptureService")
        svc:RequestScreenshotPermissionAsync()
        local a = svc:CaptureScreenshot({})
        local b = svc:CaptureScreenshot({ Format = Enum.StudioCaptureScreenshotFormat.RGBA8 })
        while a.BufferStatus.Name == "Pending" or b.BufferStatus.Name == "Pending" do task.wait(0.05) end
        shared.formats = a.BufferFormat.Name .. " " .. buffer.len(a:GetBuffer()) .. " " .. b.BufferFormat.Name .. " " .. buffer.len(b:GetBuffer())
      end)`
    const rgba = 64 * 36 * 4
    for (const [faults, want] of [
      [[], `RGBA8 ${rgba} RGBA8 ${rgba}`],
      [['capture-png'], `PNG 8 RGBA8 ${rgba}`],
    ]) {
      const { ev } = await open(['edit'], { faults, viewport: { width: 64, height: 36 } })
      await ev('edit', capture)
      await until(async () => (await ev('edit', 'return shared.formats ~= nil')) === 'true\ttrue', 5000)
      assert.equal(await ev('edit', 'return shared.formats'), `true\t${want}`, faults.join())
    }
    const { ev } = await open(['edit'])
    assert.match(await ev('edit', 'return game:GetService("StudioCaptureService"):CaptureScreenshot({ Format = Enum.Material.Plastic })'), /Format must be an Enum.StudioCaptureScreenshotFormat item/)
  })

  test('StudioCaptureService: permission once, RGBA8 at the viewport size, ScaleAsync; screenshot:denied', async () => {
    const { window, ev } = await open(['edit'])
    const capture = `task.spawn(function()
        shared.studio = nil
        local svc = game:GetService("StudioCaptureService")
        local allowed = svc:RequestScreenshotPermissionAsync()
        local c = svc:CaptureScreenshot({})
        while c.BufferStatus.Name == "Pending" do task.wait(0.05) end
        if c.BufferStatus.Name ~= "Ready" then
          shared.studio = tostring(allowed) .. " " .. c.BufferStatus.Name .. " " .. table.concat(c:GetErrors(), ";")
          return
        end
        local small = c:ScaleAsync(Enum.ResamplerMode.Default, Vector2.new(1024, 576))
        shared.studio = tostring(allowed) .. " " .. c.Resolution.X .. "x" .. c.Resolution.Y .. " " .. buffer.len(small:GetBuffer())
      end)`
    await ev('edit', capture)
    await until(async () => (await ev('edit', 'return shared.studio ~= nil')) === 'true\ttrue', 5000)
    assert.equal(await ev('edit', 'return shared.studio'), `true\ttrue 1920x1080 ${1024 * 576 * 4}`)
    const denied = (await open(['edit'], { faults: ['screenshot:denied'] })).ev
    await denied('edit', capture)
    await until(async () => (await denied('edit', 'return shared.studio ~= nil')) === 'true\ttrue', 5000)
    assert.match(await denied('edit', 'return shared.studio'), /^true\tfalse Error .*not allowed this plugin to capture/)
    assert.ok(window)
  })
})
