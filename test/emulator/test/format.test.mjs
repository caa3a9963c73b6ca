// plugin/ and the test runner (commands/testrun/testrunner.luau) are formatted with
// the pinned StyLua (plugin/stylua.toml).
// Fix with: npm run fmt --prefix test/emulator

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { test } from 'node:test'
import { REPO_ROOT } from '../src/window.mjs'

const require = createRequire(import.meta.url)

test('plugin/ is StyLua-formatted', () => {
  const run = path.join(path.dirname(require.resolve('@johnnymorganz/stylua-bin/package.json')), 'run.js')
  const r = spawnSync(process.execPath, [run, '--check', path.join(REPO_ROOT, 'plugin')], { encoding: 'utf8' })
  assert.equal(r.status, 0, `stylua --check found unformatted files (run: npm run fmt --prefix test/emulator):\n${r.stdout}${r.stderr}`)
})

test('commands/testrun/testrunner.luau is StyLua-formatted', () => {
  const run = path.join(path.dirname(require.resolve('@johnnymorganz/stylua-bin/package.json')), 'run.js')
  const r = spawnSync(
    process.execPath,
    [run, '--check', '--config-path', path.join(REPO_ROOT, 'plugin', 'stylua.toml'), path.join(REPO_ROOT, 'commands', 'testrun', 'testrunner.luau')],
    { encoding: 'utf8' },
  )
  assert.equal(r.status, 0, `stylua --check found unformatted files (run: npm run fmt --prefix test/emulator):\n${r.stdout}${r.stderr}`)
})
