// Runs the plugin's Luau unit tests (plugin/tests/*.spec.luau) under a real
// Luau VM (luau-web), inside an emulated edit DataModel whose plugin model is
// loaded as Rojo maps it but not started. Each Luau test is a node:test
// subtest, so the reporter prints one line per test and a pass/fail summary.

import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REPO_ROOT, Window } from '../src/window.mjs'

const specDir = path.join(REPO_ROOT, 'plugin', 'tests')
const specs = readdirSync(specDir)
  .filter((f) => f.endsWith('.spec.luau'))
  .sort()

let window
let dm

before(async () => {
  window = new Window({
    startScripts: false,
    quiet: true,
    onFatal: (m) => {
      throw new Error(m)
    },
  })
  await window.start(['edit'])
  dm = window.models.get('edit')
})

after(async () => {
  await window?.shutdown()
})

test('there are Luau specs', () => {
  assert.ok(specs.length > 0, `no *.spec.luau files in ${specDir}`)
})

for (const file of specs) {
  describe(`luau ${file}`, () => {
    let results
    before(async () => {
      const source = readFileSync(path.join(specDir, file), 'utf8')
      const raw = await dm.command('spec', `tests/${file.replace(/\.luau$/, '')}\n${source}`)
      if (process.env.DEBUG_SPECS) console.error(file, String(raw).slice(0, 300))
      results = JSON.parse(raw)
    })
    test('loads and runs', () => {
      const broken = results.filter((r) => r.name.startsWith('('))
      assert.deepEqual(broken, [], broken.map((r) => r.error).join('\n'))
      assert.ok(results.length > 0, 'the spec registered no tests')
    })
    test('every test passes', async (t) => {
      for (const r of results) {
        await t.test(r.name, () => {
          if (!r.ok) assert.fail(r.error)
        })
      }
    })
  })
}
