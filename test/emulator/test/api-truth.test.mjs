// API truth check: every Roblox class, member, event, enum, data type and
// global that the plugin uses, and every one the emulator's mocks provide,
// must exist in the current Roblox API as the pinned npm @rbxts/types ships
// it, at a security level a plugin has (None or PluginSecurity).
//
// Three sources:
//   1. dynamic: the emulator records every API member actually touched while
//      the real plugin runs a scenario covering every action in every context
//      (plus error paths);
//   2. static: the plugin's source is scanned for services, enums, classes it
//      creates, and every capitalised member name it calls or reads;
//   3. provided: every member the emulator's mocks implement.

import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { loadClassDb, PLUGIN_LEVELS, typesVersion } from '../src/classdb.mjs'
import { REPO_ROOT, Window } from '../src/window.mjs'
import { startWindow } from './helpers/minihost.mjs'

const db = loadClassDb()

// Luau/Roblox globals that @rbxts/types leaves out on purpose (roblox-ts has
// no use for them) but that Roblox documents as globals
// (create.roblox.com/docs/reference/engine/globals/RobloxGlobals and
// LuaGlobals).
const DOCUMENTED_GLOBALS = new Map([
  ['typeof', 'RobloxGlobals: typeof'],
  ['loadstring', 'LuaGlobals: loadstring (plugins; servers with LoadStringEnabled)'],
  ['workspace', 'RobloxGlobals: workspace'],
  ['print', 'LuaGlobals: print'],
  ['script', 'RobloxGlobals: script'],
  ['plugin', 'RobloxGlobals: plugin'],
])

// Deprecated members the emulator provides for third-party Luau its fixtures
// load (never for the plugin: what the plugin uses is still held to the
// current API). @rbxts/types leaves deprecated members out; Roblox keeps
// these, tagged Deprecated.
const DEPRECATED_PROVIDED = new Map([
  ['Object.isA', 'the lowercase alias of Instance:IsA; Jest-Lua 3.13 (Roblox\'s own test framework, run in Studio) calls descendant:isA("ModuleScript") in jest-core SearchSource'],
])

function isKnownGlobal(name) {
  if (DOCUMENTED_GLOBALS.has(name) || db.globals.has(name) || db.namespaces.has(name)) return true
  const [ns, fn] = name.split('.')
  return !!fn && !!db.namespaces.get(ns)?.has(fn)
}

// Checks one recorded key; returns a problem string or null.
function checkKey(key) {
  let m
  if ((m = /^global:(.+)$/.exec(key))) {
    return isKnownGlobal(m[1]) ? null : `global ${m[1]} is not a Roblox global`
  }
  if ((m = /^service:(.+)$/.exec(key))) {
    return db.isService(m[1]) ? null : `${m[1]} is not a service`
  }
  if ((m = /^new:(.+)$/.exec(key))) {
    return db.isCreatable(m[1]) ? null : `Instance.new("${m[1]}"): not a creatable class`
  }
  if ((m = /^datatype:(\w+)\.(\w+)$/.exec(key))) {
    const members = db.dataTypes.get(m[1])
    if (!members) return `data type ${m[1]} is unknown`
    return members.has(m[2]) ? null : `${m[1]}.${m[2]} is not a member of the data type`
  }
  if ((m = /^Enum\.(\w+)(?:\.(\w+))?$/.exec(key))) {
    if (!db.enums.has(m[1])) return `Enum.${m[1]} does not exist`
    if (m[2] && db.enumItem(m[1], m[2]) === undefined) return `Enum.${m[1]}.${m[2]} does not exist`
    return null
  }
  if ((m = /^(\w+)\.(\w+)$/.exec(key))) {
    const cls = db.classes.get(m[1])
    if (!cls) return `class ${m[1]} does not exist`
    const member = db.member(m[1], m[2])
    if (!member) return `${m[1]}.${m[2]} is not in the API plugins can use (absent, or it needs a higher security level than PluginSecurity)`
    if (!PLUGIN_LEVELS.includes(member.security)) return `${m[1]}.${m[2]} needs ${member.security}`
    return null
  }
  return `unrecognised key ${key}`
}

test('the checker itself tells real APIs from made-up or privileged ones', () => {
  assert.equal(checkKey('Plugin.GetSetting'), null) // PluginSecurity
  assert.equal(checkKey('BasePart.Position'), null)
  assert.equal(checkKey('Enum.Material.Plastic'), null)
  assert.equal(checkKey('datatype:Vector3Constructor.new'), null)
  assert.equal(checkKey('global:task.wait'), null)
  assert.match(checkKey('BasePart.Fly'), /not in the API plugins can use/)
  assert.match(checkKey('PluginToolbarButton.Icon'), /not in the API plugins can use/) // deprecated: gone from the API
  assert.match(checkKey('Players.ReportAbuse'), /not in the API plugins can use/) // RobloxScriptSecurity
  assert.match(checkKey('Enum.Material.Cheese'), /does not exist/)
  assert.match(checkKey('service:Part'), /not a service/)
  assert.match(checkKey('new:Workspace'), /not a creatable class/)
  assert.match(checkKey('datatype:Vector3.Fly'), /not a member/)
  assert.match(checkKey('global:getgenv'), /not a Roblox global/)
})

describe(`API truth check against @rbxts/types ${typesVersion()}`, () => {
  let usage
  let host
  let window

  before(async () => {
    // the server and client sessions are relayed over the edit socket
    ;({ host, window } = await startWindow(
      (port) => ({ window: new Window({ port, quiet: true, faults: [] }) }),
      { contexts: ['edit', 'server', 'client'] },
    ))
    for (const context of ['edit', 'server', 'client']) {
      const s = await host.sessionFor(context)
      const calls = [
        ['state', {}],
        ['logs', { count: 5, levels: ['Print', 'Warning'] }],
        ['query', { path: 'Workspace', depth: 2, includeAttributes: true }],
        ['query', { path: 'Workspace.Tower', properties: ['PrimaryPart', 'Nope'] }],
        ['query', { path: 'Workspace.Missing' }],
        ['query', { path: '', listServices: true }],
        ['exec', { script: 'print("a") warn("b") return Vector3.new(), CFrame.new(), Color3.new(), UDim2.new(), BrickColor.new("Bright red"), Enum.Material.Plastic' }],
        ['query', { path: 'Workspace.Effects', depth: 1 }],
        ['query', { path: 'StarterGui.Hud', depth: 1 }],
        ['exec', { script: 'return NumberRange.new(1), NumberSequence.new(1), ColorSequence.new(Color3.new()), Rect.new(), Vector3int16.new(), Vector2int16.new(), PhysicalProperties.new(1, 1, 1), Font.new("x"), Ray.new(), Region3.new(), Faces.new(), Axes.new(), DateTime.now(), Content.none, TweenInfo.new()' }],
        ['exec', { script: 'return (' }],
        ['exec', { script: 'error("x")' }],
        ['screenshot', {}],
        ['subscribe', { events: ['log'], includeInternal: true }],
        ['unsubscribe', { events: ['log'] }],
        ['exec', { script: 'local s = Instance.new("Script") s.Name = "Api" s.Parent = workspace local ses = game:GetService("ScriptEditorService") ses:OpenScriptDocumentAsync(s) local d = ses:FindScriptDocument(s) if d then d:EditTextAsync("x", 1, 1, 1, 1) end' }],
        ['scriptRead', { path: 'Workspace.Api', allowPlay: true }],
        ['scriptGrep', { pattern: 'x', root: 'Workspace', allowPlay: true, ignoreCase: true }],
        ['scriptEdit', { edits: [{ path: 'Workspace.Api', source: 'y' }, { path: 'Workspace.Made', create: true, className: 'Script', runContext: 'Server', source: 'z' }] }],
      ]
      for (const [action, payload] of calls) await host.call(s, action, payload, { timeoutMs: 120000 })
    }
    await window.setRunState('Paused')
    await new Promise((r) => setTimeout(r, 1200))
    await window.setRunState('Running')
    await window.models.get('edit').command('click', 'StudioBridgeToggle')
    await window.models.get('edit').command('click', 'StudioBridgeToggle')
    await new Promise((r) => setTimeout(r, 300))
    usage = await window.apiUsage()
  })

  after(async () => {
    await window?.shutdown()
    await host?.close()
  })

  test('the scenario touched the APIs the plugin is built on', () => {
    for (const key of [
      'HttpService.CreateWebStreamClient',
      'HttpService.RequestAsync',
      'WebStreamClient.Send',
      'WebStreamClient.MessageReceived',
      'LogService.MessageOut',
      'LogService.GetLogHistory',
      'StudioCaptureService.CanCaptureScreenshot',
      'StudioCaptureService.RequestScreenshotPermissionAsync',
      'StudioCaptureService.CaptureScreenshot',
      'StudioScreenshotCapture.ScaleAsync',
      'StudioScreenshotCapture.GetBuffer',
      'ReflectionService.GetPropertiesOfClass',
      'Plugin.GetSetting',
      'PluginToolbar.CreateButton',
      'RunService.RunState',
      'Enum.WebStreamClientType.WebSocket',
      'PluginConnectionService.CanHaveConnectionType',
      'PluginConnectionService.GetPluginConnectionsOfType',
      'PluginConnectionService.Connected',
      'PluginConnection.BindToMessage',
      'PluginConnection.SendMessage',
      'Enum.PluginConnectionTargetType.Test',
      'global:elapsedTime',
      'global:loadstring',
      'datatype:NumberSequence.Keypoints',
      'datatype:ColorSequenceKeypoint.Value',
      'datatype:Font.Weight',
      'datatype:DateTime.ToIsoDate',
      'datatype:PhysicalProperties.ElasticityWeight',
      'ScriptEditorService.UpdateSourceAsync',
      'ScriptEditorService.FindScriptDocument',
      'ScriptEditorService.GetEditorSource',
      'ScriptDocument.GetText',
      'BaseScript.RunContext',
    ]) {
      assert.ok(usage.used.includes(key), `expected the plugin to use ${key}`)
    }
  })

  test('every API used at run time exists and is open to plugins', () => {
    const problems = usage.used.map((k) => [k, checkKey(k)]).filter(([, p]) => p)
    assert.deepEqual(problems, [], problems.map(([k, p]) => `${k}: ${p}`).join('\n'))
  })

  test('every member the emulator mocks is real and open to plugins', () => {
    const problems = usage.provided
      .filter((k) => !DEPRECATED_PROVIDED.has(k))
      .map((k) => [k, checkKey(k)])
      .filter(([, p]) => p)
    assert.deepEqual(problems, [], problems.map(([k, p]) => `${k}: ${p}`).join('\n'))
  })
})

// --- static scan -----------------------------------------------------------

function luauFiles(dir) {
  const out = []
  for (const e of readdirSync(dir)) {
    const full = path.join(dir, e)
    if (statSync(full).isDirectory()) out.push(...luauFiles(full))
    else if (e.endsWith('.luau') || e.endsWith('.lua')) out.push(full)
  }
  return out
}

function stripCommentsAndStrings(src) {
  return src
    .replace(/--\[(=*)\[[\s\S]*?\]\1\]/g, '')
    .replace(/--[^\n]*/g, '')
    .replace(/\[(=*)\[[\s\S]*?\]\1\]/g, '""')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/'(?:[^'\\\n]|\\.)*'/g, "''")
}

describe('API truth check: static scan of plugin/src', () => {
  const srcDir = path.join(REPO_ROOT, 'plugin', 'src')
  const files = luauFiles(srcDir)
  const sources = files.map((f) => [path.relative(REPO_ROOT, f), readFileSync(f, 'utf8')])

  test('services named in GetService exist', () => {
    const problems = []
    for (const [file, src] of sources) {
      for (const m of src.matchAll(/GetService\("(\w+)"\)/g)) {
        if (!db.isService(m[1])) problems.push(`${file}: ${m[1]} is not a service`)
      }
    }
    assert.deepEqual(problems, [])
  })

  test('enums and enum items exist', () => {
    const problems = []
    for (const [file, src] of sources) {
      for (const m of stripCommentsAndStrings(src).matchAll(/\bEnum\.(\w+)(?:\.(\w+))?/g)) {
        const key = m[2] ? `Enum.${m[1]}.${m[2]}` : `Enum.${m[1]}`
        const p = checkKey(key)
        if (p) problems.push(`${file}: ${p}`)
      }
    }
    assert.deepEqual(problems, [])
  })

  test('classes created with Instance.new are creatable', () => {
    const problems = []
    for (const [file, src] of sources) {
      for (const m of src.matchAll(/Instance\.new\("(\w+)"/g)) {
        if (!db.isCreatable(m[1])) problems.push(`${file}: ${m[1]} is not creatable`)
      }
    }
    assert.deepEqual(problems, [])
  })

  test('every capitalised member name the plugin uses is part of the Roblox API (or the plugin’s own)', () => {
    const apiNames = new Set()
    for (const c of db.classes.values()) for (const name of c.members.keys()) apiNames.add(name)
    for (const members of db.dataTypes.values()) for (const name of members) apiNames.add(name)
    // the plugin's own modules (instance names under the plugin root) and the
    // constants its modules define
    const own = new Set()
    for (const f of files) {
      own.add(path.basename(f).replace(/(\.server|\.client)?\.luau?$/, ''))
      for (const dir of path.relative(srcDir, path.dirname(f)).split(path.sep)) if (dir) own.add(dir)
    }
    for (const [enumName, items] of db.enums) {
      apiNames.add(enumName)
      for (const item of items.keys()) apiNames.add(item)
    }
    for (const [, src] of sources) {
      for (const m of src.matchAll(/export type (\w+)/g)) own.add(m[1])
      for (const m of src.matchAll(/^\s*(?:\w+)\.([A-Z]\w*)\s*=/gm)) own.add(m[1])
      for (const m of src.matchAll(/^\s*([A-Z][A-Z0-9_]*)\s*=\s*table\.freeze/gm)) own.add(m[1])
      for (const m of src.matchAll(/\b([A-Z][A-Za-z0-9_]*)\s*=\s*"/g)) own.add(m[1]) // Codes table keys
    }
    // Fields of plain tables the engine hands to plugins, which the class API
    // does not describe:
    const ENGINE_TABLES = new Map([
      ['Url', 'HttpService request options (RequestAsync, CreateWebStreamClient)'],
      ['Method', 'HttpService:RequestAsync request options'],
      ['Body', 'HttpService:RequestAsync response dictionary'],
      ['Permits', 'ReflectionService ReflectedProperty dictionary'],
      ['Read', 'ReflectionService ReflectedProperty.Permits'],
    ])
    const problems = []
    for (const [file, src] of sources) {
      const code = stripCommentsAndStrings(src)
      for (const m of code.matchAll(/[.:]([A-Z]\w*)\b/g)) {
        const name = m[1]
        if (apiNames.has(name) || own.has(name) || ENGINE_TABLES.has(name)) continue
        problems.push(`${file}: ${name}`)
      }
      for (const m of code.matchAll(/\{\s*([A-Z]\w*)\s*=/g)) {
        // keys of tables passed to engine APIs ({ Url = … })
        if (!apiNames.has(m[1]) && !own.has(m[1]) && !ENGINE_TABLES.has(m[1])) problems.push(`${file}: table key ${m[1]}`)
      }
    }
    assert.deepEqual([...new Set(problems)], [])
  })
})
