// StudioTestService and ChangeHistoryService in the emulator behave as the
// Roblox reference describes (test/emulator/README.md lists the sources).

import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Window } from '../src/window.mjs'

let window
const ev = async (context, code) => String(await window.models.get(context).command('eval', code))

// a DataModel that has started (its runtime answers commands)
const ready = (context) => window.models.get(context)?.commandFn !== undefined

async function until(what, fn, ms = 10000) {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

before(async () => {
  window = new Window({ noPlugin: true, quiet: true })
  await window.start(['edit'])
})
after(() => window.shutdown())

test('ExecutePlayModeAsync starts Play, yields until EndTest, and returns its value', async () => {
  assert.equal(await ev('edit', 'return game:GetService("StudioTestService").EditModeActive'), 'true\ttrue')
  await ev('edit', `_G.result = "pending" task.spawn(function() _G.result = game:GetService("StudioTestService"):ExecutePlayModeAsync({level = 3}) end)`)
  await until('server and client', () => ready('server') && ready('client'))
  assert.equal(await ev('edit', 'return _G.result, game:GetService("StudioTestService").EditModeActive'), 'true\tpending\tfalse')
  assert.equal(await ev('server', 'return game:GetService("StudioTestService"):GetTestArgs().level'), 'true\t3')
  assert.equal(await ev('client', 'return game:GetService("StudioTestService"):GetTestArgs().level'), 'true\t3')
  assert.equal(await ev('edit', 'return game:GetService("StudioTestService"):GetTestArgs()'), 'true\tnil')
  assert.match(await ev('client', 'return pcall(function() game:GetService("StudioTestService"):EndTest(1) end)'), /true\tfalse\t.*EndTest can only be called from the server DataModel/)
  // a second test while one runs is refused
  assert.match(
    await ev('edit', 'local ok, err = pcall(function() game:GetService("StudioTestService"):ExecuteRunModeAsync() end) return ok, err'),
    /true\tfalse\t.*already running/,
  )
  // Players:GetPlayers() (the README's Play example): the test's player,
  // none while editing
  assert.equal(await ev('server', 'local p = game:GetService("Players"):GetPlayers() return #p, p[1].Name'), 'true\t1\tPlayer1')
  assert.equal(await ev('client', 'return #game.Players:GetPlayers()'), 'true\t1')
  assert.equal(await ev('edit', 'return #game:GetService("Players"):GetPlayers()'), 'true\t0')
  assert.match(await ev('server', 'return pcall(function() return game.Players.GetPlayers() end)'), /true\tfalse\t.*Expected ':' not '.'/)
  await ev('server', 'game:GetService("StudioTestService"):EndTest({passed = 7})')
  await until('the test to end', () => !window.models.has('server') && !window.models.has('client'))
  assert.equal(await until('the result', async () => {
    const r = await ev('edit', 'return type(_G.result) == "table" and _G.result.passed')
    return r !== 'true\tfalse' && r
  }), 'true\t7')
  assert.equal(await ev('edit', 'return game:GetService("StudioTestService").EditModeActive'), 'true\ttrue')
})

test('ExecuteRunModeAsync starts Run (no client); the user stopping it returns nil', async () => {
  await ev('edit', `_G.run = "pending" task.spawn(function() _G.run = game:GetService("StudioTestService"):ExecuteRunModeAsync("x") _G.run = tostring(_G.run) end)`)
  await until('the run server', () => ready('server'))
  assert.equal(window.models.has('client'), false)
  assert.equal(await ev('server', 'return game:GetService("RunService"):IsRunMode(), game:GetService("RunService"):IsClient()'), 'true\ttrue\ttrue')
  await window.stopPlay() // stdin `stop`: the Stop button
  assert.equal(await until('nil', async () => {
    const r = await ev('edit', 'return _G.run')
    return r !== 'true\tpending' && r
  }), 'true\tnil')
})

test('Execute*Async refuse outside the edit DataModel', async () => {
  const w = new Window({ noPlugin: true, quiet: true })
  await w.start(['server'])
  const r = String(await w.models.get('server').command('eval', 'return pcall(function() game:GetService("StudioTestService"):ExecutePlayModeAsync() end)'))
  await w.shutdown()
  assert.match(r, /true\tfalse\t.*can only be called from the edit DataModel/)
})

const history = (op) => window.history(op)

test('one recording is one undo step: creation, property, parent and destruction changes', async () => {
  assert.equal(
    await ev(
    'edit',
    `local CHS = game:GetService("ChangeHistoryService")
     local id = CHS:TryBeginRecording("edit 1")
     assert(id and CHS:IsRecordingInProgress(id) and CHS:IsRecordingInProgress())
     assert(CHS:TryBeginRecording("nested") == nil)
     local p = Instance.new("Part") p.Name = "New" p.Parent = workspace
     workspace.SpawnLocation.Anchored = false
     workspace.SpawnLocation.Name = "Renamed"
     local f = Instance.new("Folder") f.Name = "Box" f.Parent = workspace
     workspace.Tower.Parent = f
     workspace.Effects:Destroy()
     CHS:FinishRecording(id, Enum.FinishRecordingOperation.Commit)
     assert(not CHS:IsRecordingInProgress())
     return true`,
    ),
    'true\ttrue',
  )
  const after = 'return workspace:FindFirstChild("New") ~= nil, workspace:FindFirstChild("Renamed") ~= nil, workspace:FindFirstChild("Box") ~= nil, workspace:FindFirstChild("Effects") ~= nil, workspace:FindFirstChild("Tower") ~= nil'
  assert.equal(await ev('edit', after), 'true\ttrue\ttrue\ttrue\tfalse\tfalse')
  assert.equal(await ev('edit', 'return game:GetService("ChangeHistoryService"):GetCanUndo()'), 'true\ttrue\tedit 1')
  assert.equal(await history('undo'), 'edit 1')
  assert.equal(await ev('edit', after), 'true\tfalse\tfalse\tfalse\ttrue\ttrue')
  assert.equal(await ev('edit', 'return workspace.SpawnLocation.Anchored, workspace.Effects.Sparks ~= nil, workspace.Tower.Parent == workspace'), 'true\ttrue\ttrue\ttrue')
  // a restored instance can be moved again (its parent is no longer locked)
  assert.equal(await ev('edit', 'return pcall(function() workspace.Effects.Parent = workspace end)'), 'true\ttrue')
  assert.equal(await ev('edit', 'return game:GetService("ChangeHistoryService"):GetCanRedo()'), 'true\ttrue\tedit 1')
  assert.equal(await history('redo'), 'edit 1')
  assert.equal(await ev('edit', after), 'true\ttrue\ttrue\ttrue\tfalse\tfalse')
  assert.equal(await ev('edit', 'return workspace.Box.Tower.Base ~= nil, workspace.Renamed.Anchored'), 'true\ttrue\tfalse')
  assert.equal(await history('undo'), 'edit 1')
  assert.equal(await history('undo'), 'nothing: nothing to undo')
})

test('--fault undo-destroyed: undo puts back everything but what the step destroyed (its Parent stays locked)', async () => {
  const w = new Window({ noPlugin: true, quiet: true, faults: ['undo-destroyed'] })
  await w.start(['edit'])
  try {
    const run = async (code) => String(await w.models.get('edit').command('eval', code))
    await run(
      `local CHS = game:GetService("ChangeHistoryService")
       local id = CHS:TryBeginRecording("destroying")
       workspace.SpawnLocation.Name = "Renamed"
       workspace.Effects:Destroy()
       CHS:FinishRecording(id, Enum.FinishRecordingOperation.Commit)`,
    )
    assert.equal(await w.history('undo'), 'destroying')
    // the rename is undone; the destroyed folder stays gone and locked
    assert.equal(await run('return workspace:FindFirstChild("SpawnLocation") ~= nil, workspace:FindFirstChild("Effects")'), 'true\ttrue\tnil')
    assert.equal(await w.history('redo'), 'destroying')
    assert.equal(await run('return workspace:FindFirstChild("Renamed") ~= nil, workspace:FindFirstChild("Effects")'), 'true\ttrue\tnil')
  } finally {
    await w.shutdown()
  }
})

test('Cancel reverts the work in progress; Append merges into the previous step; no recording, no undo', async () => {
  await ev(
    'edit',
    `local CHS = game:GetService("ChangeHistoryService")
     local id = CHS:TryBeginRecording("cancelled")
     Instance.new("Folder", workspace).Name = "Gone"
     CHS:FinishRecording(id, Enum.FinishRecordingOperation.Cancel)`,
  )
  assert.equal(await ev('edit', 'return workspace:FindFirstChild("Gone")'), 'true\tnil')
  await ev(
    'edit',
    `local CHS = game:GetService("ChangeHistoryService")
     local a = CHS:TryBeginRecording("first")
     Instance.new("Folder", workspace).Name = "A"
     CHS:FinishRecording(a, Enum.FinishRecordingOperation.Commit)
     local b = CHS:TryBeginRecording("second")
     Instance.new("Folder", workspace).Name = "B"
     CHS:FinishRecording(b, Enum.FinishRecordingOperation.Append)
     Instance.new("Folder", workspace).Name = "Unrecorded"`,
  )
  assert.equal(await history('undo'), 'first')
  assert.equal(await ev('edit', 'return workspace:FindFirstChild("A"), workspace:FindFirstChild("B"), workspace:FindFirstChild("Unrecorded") ~= nil'), 'true\tnil\tnil\ttrue')
  assert.match(await ev('edit', 'return pcall(function() game:GetService("ChangeHistoryService"):FinishRecording("nope", Enum.FinishRecordingOperation.Commit) end)'), /no recording in progress/)
  assert.match(await ev('edit', 'return pcall(function() game:GetService("ChangeHistoryService"):FinishRecording("x", 7) end)'), /Enum.FinishRecordingOperation expected/)
})

// HttpService in a playtest's server DataModel follows the game's
// HttpEnabled (off by default: the HttpService reference, "Http requests are
// not enabled. Enable via game settings") and a game server's budget of
// requests a minute ("Number of requests exceeded limit"); the edit
// DataModel is not gated.
test('HTTP from a game server: HttpEnabled gates RequestAsync, GetAsync and PostAsync; the per-minute budget', async () => {
  const call = (w, context, code) => w.models.get(context).command('eval', code).then(String)
  const off = new Window({ noPlugin: true, quiet: true })
  await off.start(['edit', 'server'])
  try {
    for (const req of [
      'HS:RequestAsync({Url = "http://127.0.0.1:1/", Method = "GET"})',
      'HS:GetAsync("http://127.0.0.1:1/")',
      'HS:PostAsync("http://127.0.0.1:1/", "{}")',
    ]) {
      assert.equal(
        await call(off, 'server', `local HS = game:GetService("HttpService") local ok, err = pcall(function() return ${req} end) return ok, err`),
        'true\tfalse\tHttp requests are not enabled. Enable via game settings',
        req,
      )
    }
    // the edit DataModel (the plugin's own requests) is not gated: it
    // reaches the network (a request yields: eval runs it in a thread)
    await call(off, 'edit', '_G.r = "pending" task.spawn(function() local ok, err = pcall(function() return game:GetService("HttpService"):GetAsync("http://127.0.0.1:1/") end) _G.r = tostring(err) end)')
    const edit = await until('the edit request', async () => {
      const r = await call(off, 'edit', 'return _G.r')
      return r !== 'true\tpending' && r
    })
    assert.match(edit, /HttpError/)
  } finally {
    await off.shutdown()
  }

  const on = new Window({ noPlugin: true, quiet: true, httpEnabled: true, httpRequestsPerMinute: 3 })
  await on.start(['edit', 'server'])
  try {
    await call(
      on,
      'server',
      `_G.r = "pending"
       task.spawn(function()
         local HS = game:GetService("HttpService")
         local out = {}
         for i = 1, 4 do
           local ok, err = pcall(function() return HS:GetAsync("http://127.0.0.1:1/") end)
           table.insert(out, if string.find(tostring(err), "exceeded limit", 1, true) then "limit" else "network")
         end
         _G.r = table.concat(out, ",")
       end)`,
    )
    const results = await until('four requests', async () => {
      const r = await call(on, 'server', 'return _G.r')
      return r !== 'true\tpending' && r
    })
    assert.equal(results, 'true\tnetwork,network,network,limit')
  } finally {
    await on.shutdown()
  }
})
