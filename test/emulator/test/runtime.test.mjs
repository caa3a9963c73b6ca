// The emulator's Roblox API behaves like Studio where the plugin depends on
// it: error messages, deferred signals, yields, float32 values, parenting.

import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Window } from '../src/window.mjs'

let window
let dm
const ev = async (code) => String(await dm.command('eval', code))

before(async () => {
  window = new Window({ noPlugin: true, quiet: true })
  await window.start(['edit'])
  dm = window.models.get('edit')
})
after(() => window.shutdown())

test('member errors read like Studio', async () => {
  assert.equal(await ev('return pcall(function() return workspace.SpawnLocation.Fly end)'), 'true\tfalse\tCommandBar:1: Fly is not a valid member of SpawnLocation "Workspace.SpawnLocation"')
  assert.equal(await ev('return pcall(function() workspace.ClassName = "x" end)'), 'true\tfalse\tCommandBar:1: Unable to assign property ClassName. Property is read only')
  assert.equal(await ev('return pcall(function() workspace.SpawnLocation.Anchored = "yes" end)'), 'true\tfalse\tCommandBar:1: Unable to assign property Anchored. boolean expected, got string')
  assert.equal(await ev('return pcall(Instance.new, "Workspace")'), 'true\tfalse\tUnable to create an Instance of type "Workspace"')
  assert.equal(await ev('return pcall(function() return game:GetService("Part") end)'), "true\tfalse\tCommandBar:1: 'Part' is not a valid Service name")
})

test('parenting: circular references and locked parents fail', async () => {
  assert.match(await ev('local m = Instance.new("Model") local p = Instance.new("Part", m) return pcall(function() m.Parent = p end)'), /would result in circular reference/)
  assert.match(await ev('local p = Instance.new("Part") p:Destroy() return pcall(function() p.Parent = workspace end)'), /The Parent property of Part is locked/)
})

test('signals are deferred: handlers run after the firing code yields', async () => {
  assert.equal(
    await ev('local order = {} workspace.ChildAdded:Connect(function(c) table.insert(order, "handler " .. c.Name) end) local p = Instance.new("Part") p.Name = "X" p.Parent = workspace table.insert(order, "after parent") return table.concat(order, ",")'),
    'true\tafter parent',
  )
})

test('values are float32 like the engine', async () => {
  assert.equal(await ev('return Vector3.new(0.1, 0, 0).X == 0.1, Vector3.new(0.1, 0, 0).X'), 'true\tfalse\t0.10000000149011612')
  assert.equal(await ev('return tostring(Vector3.new(1, 2.5, -3)), tostring(Color3.fromRGB(255, 0, 0)), tostring(UDim2.new(0.5, 10, 0, 40))'), 'true\t1, 2.5, -3\t1, 0, 0\t{0.5, 10}, {0, 40}')
})

test('typeof knows Roblox types; getmetatable is locked', async () => {
  assert.equal(await ev('return typeof(workspace), typeof(Vector3.zero), typeof(Enum.Material), typeof(Enum.Material.Plastic), typeof(workspace.ChildAdded), type(workspace)'), 'true\tInstance\tVector3\tEnum\tEnumItem\tRBXScriptSignal\tuserdata')
  assert.equal(await ev('return getmetatable(workspace)'), 'true\tThe metatable is locked')
})

test('loadstring exists in edit; require caches and reports module errors', async () => {
  assert.equal(await ev('return loadstring("return 2 + 2")()'), 'true\t4')
  assert.match(await ev('local m = Instance.new("ModuleScript") m.Name = "Bad" m.Source = "return (" return pcall(require, m)'), /Requested module experienced an error while loading/)
  assert.equal(await ev('local m = Instance.new("ModuleScript") m.Source = "return {}" return require(m) == require(m)'), 'true\ttrue')
})

test('a server DataModel has no loadstring unless the fixture enables it', async () => {
  const w = new Window({ noPlugin: true, quiet: true })
  await w.start(['server'])
  const r = String(await w.models.get('server').command('eval', 'return pcall(loadstring, "return 1")'))
  await w.shutdown()
  assert.equal(r, 'true\tfalse\tloadstring() is not available')
})
