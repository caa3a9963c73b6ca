// TestEZ runs unmodified in the emulated place: the default fixture mounts
// the pinned npm @rbxts/testez (TestEZ 0.4.2) at
// ReplicatedStorage.DevPackages.TestEZ, and its TextReporter's
// TestService:Error reaches Output.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { expandPackages, packageRoot } from '../src/packages.mjs'
import { Window } from '../src/window.mjs'

let window
let dm
const ev = async (code) => String(await dm.command('eval', code))
const lines = []

before(async () => {
  window = new Window({ noPlugin: true, quiet: true })
  window.outputListeners.push((context, type, message) => lines.push(`${type} ${message}`))
  await window.start(['edit'])
  dm = window.models.get('edit')
})
after(() => window.shutdown())

test('the default place holds the pinned TestEZ, sources as the package ships them', async () => {
  const root = packageRoot('@rbxts/testez')
  assert.equal(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version, '0.4.2-ts.0')
  const expected = readFileSync(path.join(root, 'src', 'TestPlanner.lua'), 'utf8')
  assert.equal(await ev('return game.ReplicatedStorage.DevPackages.TestEZ.TestPlanner.Source'), `true\t${expected}`)
  assert.equal(await ev('return game.ReplicatedStorage.DevPackages.TestEZ.ClassName, game.ReplicatedStorage.DevPackages.TestEZ.Reporters.ClassName'), 'true\tModuleScript\tFolder')
})

test('TestEZ runs a plan unmodified: passes, failures and skips are counted, failures reach Output through TestService:Error', async () => {
  lines.length = 0
  const r = await ev(`
    local TestEZ = require(game.ReplicatedStorage.DevPackages.TestEZ)
    local folder = Instance.new("Folder")
    local spec = Instance.new("ModuleScript")
    spec.Name = "math.spec"
    spec.Source = [[
return function()
  describe("math", function()
    it("adds", function() expect(1 + 1).to.equal(2) end)
    it("fails", function() expect(1).to.equal(2) end)
    itSKIP("skipped", function() end)
  end)
end]]
    spec.Parent = folder
    folder.Parent = game.ReplicatedStorage
    local results = TestEZ.TestBootstrap:run({ folder })
    folder:Destroy()
    return results.successCount, results.failureCount, results.skippedCount, game:GetService("TestService").ErrorCount`)
  assert.equal(r, 'true\t1\t1\t1\t1')
  const error = lines.find((l) => l.startsWith('MessageError '))
  assert.ok(error, `no error line in Output: ${lines.join('\n')}`)
  assert.match(error, /math\.spec:4: Expected value "2" \(number\), got "1" \(number\) instead/)
})

test('TestService:Error checks its arguments as Studio does', async () => {
  assert.match(await ev('return pcall(function() game:GetService("TestService"):Error(nil) end)'), /invalid argument #1 to 'Error' \(string expected, got nil\)/)
})

test('a fixture package must be one package.json pins', () => {
  assert.throws(() => expandPackages({ tree: [{ className: 'ModuleScript', name: 'X', package: 'left-pad' }] }), /not a dependency of test\/emulator\/package.json/)
  assert.throws(() => expandPackages({ tree: [{ className: 'Folder', name: 'TestEZ', package: '@rbxts/testez', packagePath: 'src' }] }), /is a ModuleScript, the fixture says Folder/)
})
