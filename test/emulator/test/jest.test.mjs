// Jest-Lua runs unmodified in the emulated place: fixtures/jest.json mounts
// the pinned npm @rbxts/jest (Jest-Lua 3.13) and the @rbxts-js packages it
// brings, as roblox-ts lays them out (ReplicatedStorage.rbxts_include.
// node_modules["@rbxts-js"]); runCLI plans, runs and reports a spec. Its
// ~2 MB of sources also exercise the fixture's chunked hand-over (vm.mjs).

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { expandPackages, packageRoot } from '../src/packages.mjs'
import { until } from './helpers/minihost.mjs'
import { chunked } from '../src/vm.mjs'
import { Window } from '../src/window.mjs'

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'jest.json')
let window
let dm
const ev = async (code) => String(await dm.command('eval', code))

before(async () => {
  window = new Window({ noPlugin: true, quiet: true, fixture })
  await window.start(['edit'])
  dm = window.models.get('edit')
})
after(() => window.shutdown())

test('the Jest place holds the pinned Jest-Lua, sources as the packages ship them', async () => {
  assert.equal(JSON.parse(readFileSync(path.join(packageRoot('@rbxts/jest'), 'package.json'), 'utf8')).version, '3.13.3-ts.1')
  const jestCore = path.join(path.dirname(path.dirname(packageRoot('@rbxts/jest'))), '@rbxts-js', 'jest-core', 'src', 'SearchSource.lua')
  assert.equal(await ev('return game.ReplicatedStorage.rbxts_include.node_modules["@rbxts-js"].JestCore.SearchSource.Source'), `true\t${readFileSync(jestCore, 'utf8')}`)
})

test('Jest-Lua runCLI runs a spec unmodified: a pass, a failure with its line, a skip', async () => {
  // runCLI yields, eval may not: run it on a thread of its own, then poll
  await ev(`_G.jestResult = nil
  task.spawn(function()
    local P = game.ReplicatedStorage.rbxts_include.node_modules["@rbxts-js"]
    local root = Instance.new("Folder")
    root.Name = "Specs"
    local config = Instance.new("ModuleScript")
    config.Name = "jest.config"
    config.Source = 'return { testMatch = { "**/*.spec" } }'
    config.Parent = root
    local spec = Instance.new("ModuleScript")
    spec.Name = "math.spec"
    spec.Source = [[
local G = require(game.ReplicatedStorage.rbxts_include.node_modules["@rbxts-js"].JestGlobals)
G.describe("math", function()
  G.it("adds", function() G.expect(1 + 1).toBe(2) end)
  G.it("fails", function() G.expect(1 + 1).toBe(3) end)
  G.it.skip("skipped", function() end)
end)]]
    spec.Parent = root
    root.Parent = game.ServerStorage
    local status, result = require(P.Jest).runCLI(root, { ci = true, reporters = {} }, { root }):awaitStatus()
    root:Destroy()
    local r = result.results
    local failed = r.testResults[1].testResults[2]
    _G.jestResult = table.concat({ status, r.numPassedTests, r.numFailedTests, r.numPendingTests, failed.title, string.match(failed.failureMessages[1], '"ServerStorage.Specs.math.spec"%]:(%d+)') }, " ")
  end)`)
  let r
  await until(async () => (r = await ev('return _G.jestResult')) !== 'true\tnil', 60000, 100)
  assert.equal(r, 'true\tResolved 1 1 1 fails 4')
})

test('chunked hands long strings over in parts that join to the whole, never splitting a surrogate pair', () => {
  const s = 'a'.repeat(9) + '😀' + 'b'.repeat(5)
  const parts = chunked(s, 10)
  assert.equal(parts.join(''), s)
  assert.ok(parts.every((p) => !/[\uD800-\uDBFF]$/.test(p)), parts)
  assert.deepEqual(chunked(''), [''])
})

test('a package scope comes only through a package package.json pins', () => {
  assert.throws(() => expandPackages({ tree: [{ className: 'Folder', name: '@rbxts-js', packageScope: '@rbxts-js', via: '@rbxts/not-pinned' }] }), /not a dependency of test\/emulator\/package.json/)
  const fx = expandPackages({ tree: [{ className: 'Folder', name: '@rbxts-js', packageScope: '@rbxts-js', via: '@rbxts/jest' }] })
  const names = fx.tree[0].children.map((c) => c.name)
  for (const want of ['Jest', 'JestCore', 'JestGlobals', 'LuauPolyfill', 'Promise']) assert.ok(names.includes(want), `${want} missing from ${names}`)
})
