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

test('SignalBehavior Immediate: handlers run inside the firing code', async () => {
  const w = new Window({ noPlugin: true, quiet: true, signalBehavior: 'Immediate' })
  await w.start(['edit'])
  const r = String(
    await w.models
      .get('edit')
      .command('eval', 'local order = {} workspace.ChildAdded:Connect(function(c) table.insert(order, "handler " .. c.Name) end) local p = Instance.new("Part") p.Name = "X" p.Parent = workspace table.insert(order, "after parent") return table.concat(order, ",")'),
  )
  await w.shutdown()
  assert.equal(r, 'true\thandler X,after parent')
  assert.throws(() => new Window({ noPlugin: true, quiet: true, signalBehavior: 'Sometimes' }), /want Deferred or Immediate/)
})

test('Output of modules, loadstring chunks and spawned-thread errors reaches LogService.MessageOut', async () => {
  const lines = []
  const listener = (context, type, message) => lines.push(`${type} ${message}`)
  window.outputListeners.push(listener)
  const r = await ev(
    [
      'local seen = {}',
      'game:GetService("LogService").MessageOut:Connect(function(m, t) table.insert(seen, t.Name .. " " .. m) end)',
      'local m = Instance.new("ModuleScript")',
      `m.Source = 'print("from module") return function() warn("module fn") end'`,
      'require(m)()',
      `loadstring('print("inner")')()`,
      'task.spawn(function() error("bg err") end)',
      'return #seen',
    ].join('\n'),
  )
  window.outputListeners.splice(window.outputListeners.indexOf(listener), 1)
  assert.equal(r, 'true\t0') // deferred: the handler has not run yet
  assert.deepEqual(lines, [
    'MessageOutput from module',
    'MessageWarning module fn',
    'MessageOutput inner',
    'MessageError CommandBar:7: bg err',
    'MessageInfo Stack Begin',
    "MessageInfo Script 'CommandBar', Line 7",
    'MessageInfo Stack End',
  ])
})

test("a loadstring chunk gets the calling script's environment, not the caller's setfenv table", async () => {
  assert.equal(
    await ev('local f = function() return loadstring("return print")() end setfenv(f, setmetatable({ print = "custom" }, { __index = getfenv() })) local p = f() return p == print, p == "custom"'),
    'true\ttrue\tfalse',
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

test('more data types: typeof, fields, float32, read-only fields', async () => {
  assert.equal(
    await ev('return typeof(NumberRange.new(1)), typeof(NumberSequence.new(1)), typeof(NumberSequenceKeypoint.new(0, 1)), typeof(ColorSequence.new(Color3.new())), typeof(ColorSequenceKeypoint.new(0, Color3.new())), typeof(Rect.new()), typeof(Vector3int16.new()), typeof(Vector2int16.new()), typeof(PhysicalProperties.new(1, 1, 1)), typeof(Font.new("x")), typeof(Ray.new()), typeof(Region3.new()), typeof(Faces.new()), typeof(Axes.new()), typeof(TweenInfo.new())'),
    'true\tNumberRange\tNumberSequence\tNumberSequenceKeypoint\tColorSequence\tColorSequenceKeypoint\tRect\tVector3int16\tVector2int16\tPhysicalProperties\tFont\tRay\tRegion3\tFaces\tAxes\tTweenInfo',
  )
  assert.equal(await ev('local r = NumberRange.new(0.1, 2) return r.Min == 0.1, r.Max'), 'true\tfalse\t2')
  assert.equal(await ev('return pcall(function() NumberRange.new(1).Min = 3 end)'), 'true\tfalse\tCommandBar:1: Min cannot be assigned to')
  assert.equal(await ev('return pcall(function() Rect.new().Width = 3 end)'), 'true\tfalse\tCommandBar:1: Width cannot be assigned to')
  assert.equal(await ev('local k = NumberSequence.new(1, 2).Keypoints return #k, k[1].Time, k[1].Value, k[2].Time, k[2].Value, k[2].Envelope'), 'true\t2\t0\t1\t1\t2\t0')
  assert.equal(await ev('local s = NumberSequence.new(1) return s.Keypoints ~= s.Keypoints'), 'true\ttrue') // a new table per read
  assert.equal(await ev('local k = ColorSequence.new(Color3.new(1, 0, 0), Color3.new(0, 0, 1)).Keypoints return k[2].Time, tostring(k[2].Value)'), 'true\t1\t0, 0, 1')
  assert.equal(await ev('local r = Rect.new(1, 2, 4, 8) return r.Width, r.Height, tostring(r.Min)'), 'true\t3\t6\t1, 2')
  assert.equal(await ev('local v = Vector3int16.new(1.9, -2.9, 40000) return v.X, v.Y, v.Z'), 'true\t1\t-2\t-25536')
  assert.equal(await ev('local p = PhysicalProperties.new(0, 5, -1) return p.Density, p.Friction, p.Elasticity, p.FrictionWeight, p.ElasticityWeight'), 'true\t0.00009999999747378752\t2\t0\t1\t1')
  assert.equal(await ev('local p = PhysicalProperties.new(Enum.Material.Plastic) return p == PhysicalProperties.new(0.7, 0.3, 0.5)'), 'true\ttrue')
  assert.equal(await ev('local r = Ray.new(Vector3.new(0, 0, 0), Vector3.new(10, 0, 0)) return r:Distance(Vector3.new(5, 3, 0)), tostring(r:ClosestPoint(Vector3.new(-5, 1, 0))), tostring(r.Unit.Direction)'), 'true\t3\t0, 0, 0\t1, 0, 0')
  assert.equal(await ev('local r = Region3.new(Vector3.new(0, 0, 0), Vector3.new(4, 2, 6)) return tostring(r.CFrame.Position), tostring(r.Size), tostring(r:ExpandToGrid(4).Size)'), 'true\t2, 1, 3\t4, 2, 6\t4, 4, 8')
  assert.equal(await ev('local f = Faces.new(Enum.NormalId.Top) return f.Top, f.Bottom, tostring(f)'), 'true\ttrue\tfalse\tTop')
  assert.equal(await ev('local a = Axes.new(Enum.NormalId.Left) return a.X, a.Left, a.Right, a.Y'), 'true\ttrue\ttrue\ttrue\tfalse')
  assert.equal(await ev('local t = TweenInfo.new() return t.Time, t.EasingStyle, t.EasingDirection, t.RepeatCount, t.Reverses, t.DelayTime'), 'true\t1\tEnum.EasingStyle.Quad\tEnum.EasingDirection.Out\t0\tfalse\t0')
  assert.equal(await ev('local c = Content.fromObject(workspace) return c.SourceType, c.Object == workspace, Content.none.SourceType'), 'true\tEnum.ContentSourceType.Object\ttrue\tEnum.ContentSourceType.None')
})

test('sequences check their keypoints like Roblox', async () => {
  assert.match(await ev('return pcall(NumberSequence.new, {NumberSequenceKeypoint.new(0, 1)})'), /requires at least 2 keypoints/)
  assert.match(await ev('return pcall(NumberSequence.new, {NumberSequenceKeypoint.new(0.5, 1), NumberSequenceKeypoint.new(1, 1)})'), /must start at time=0.0 and end at time=1.0/)
  assert.match(await ev('return pcall(ColorSequence.new, {ColorSequenceKeypoint.new(0, Color3.new()), ColorSequenceKeypoint.new(0.6, Color3.new()), ColorSequenceKeypoint.new(0.5, Color3.new()), ColorSequenceKeypoint.new(1, Color3.new())})'), /ordered by time/)
  assert.match(await ev('return pcall(NumberRange.new, 2, 1)'), /invalid range/)
})

test('Font fields are writable on a copy; instance properties hand out copies', async () => {
  assert.equal(
    await ev('local f = Font.fromEnum(Enum.Font.SourceSansBold) return f.Family, f.Weight, f.Style, f.Bold'),
    'true\trbxasset://fonts/families/SourceSansPro.json\tEnum.FontWeight.Bold\tEnum.FontStyle.Normal\ttrue',
  )
  assert.equal(await ev('local f = Font.new("rbxassetid://1") f.Bold = true return f.Weight, pcall(function() f.Weight = Enum.FontStyle.Italic end)'), 'true\tEnum.FontWeight.Bold\tfalse\tCommandBar:1: invalid argument #3 to \'Weight\' (Enum.FontWeight expected, got EnumItem)')
  assert.equal(
    await ev('local l = Instance.new("TextLabel") l.FontFace = Font.fromName("Ubuntu") local f = l.FontFace f.Weight = Enum.FontWeight.Heavy return l.FontFace.Weight, l.FontFace == Font.fromName("Ubuntu")'),
    'true\tEnum.FontWeight.Regular\ttrue',
  )
})

test('DateTime: from and to calendar times (UTC, the emulator local zone), ISO dates', async () => {
  assert.equal(await ev('return DateTime.fromUniversalTime(2024, 2, 29, 13, 45, 30, 250).UnixTimestampMillis'), 'true\t1709214330250')
  assert.equal(await ev('return DateTime.fromUniversalTime(1969, 12, 31).UnixTimestamp, DateTime.fromUniversalTime().UnixTimestampMillis'), 'true\t-86400\t0')
  assert.equal(await ev('return DateTime.fromLocalTime(2000, 1, 1).UnixTimestamp'), 'true\t946684800')
  assert.equal(await ev('local t = DateTime.fromUnixTimestampMillis(1709214330250):ToUniversalTime() return t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second, t.Millisecond'), 'true\t2024\t2\t29\t13\t45\t30\t250')
  assert.equal(await ev('return DateTime.fromIsoDate("2024-02-29T13:45:30.25Z").UnixTimestampMillis, DateTime.fromIsoDate("2024-02-29T13:45:30Z").UnixTimestampMillis, DateTime.fromIsoDate("yesterday")'), 'true\t1709214330250\t1709214330000\tnil')
  assert.equal(await ev('return DateTime.fromUniversalTime(2024, 2, 29, 13, 45, 30, 250):ToIsoDate()'), 'true\t2024-02-29T13:45:30.250Z')
})

test('Instance:isA, the deprecated alias Studio keeps (third-party Luau such as Jest-Lua calls it)', async () => {
  assert.equal(await ev('return workspace:isA("Workspace"), workspace:isA("Instance"), workspace:isA("Part")'), 'true\ttrue\ttrue\tfalse')
})
