// scriptRead, scriptGrep and scriptEdit: the real plugin against the
// emulator's ScriptEditorService (runtime/scripteditor.luau), through a
// JavaScript host. The Go tests (scripts_test.go) repeat the main cases
// through the CLI and MCP.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Window } from '../src/window.mjs'
import { startWindow, TEST_PAIRING } from './helpers/minihost.mjs'

function newWindow(port, extra = {}) {
  const window = new Window({
    port,
    quiet: true,
    pairing: TEST_PAIRING,
    onFatal: (m) => {
      throw new Error(m)
    },
    ...extra,
  })
  return { window }
}

describe('script actions', () => {
  let host, session, window, stop
  before(async () => {
    ;({ host, session, window, stop } = await startWindow((port) =>
      newWindow(port, { faults: ['script-locked:ServerScriptService.Locked:held by Ana in Team Create'] }),
    ))
  })
  after(async () => {
    await stop()
  })

  const call = (action, payload) => host.call(session, action, payload)
  const exec = async (script) => {
    const r = await call('exec', { script })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.payload.success, true, JSON.stringify(r.payload))
    return r.payload.returnValues
  }
  const make = (name, source, className = 'Script') =>
    exec(`local s = Instance.new("${className}") s.Name = "${name}" s.Source = ${JSON.stringify(source)} s.Parent = game:GetService("ServerScriptService") return true`)
  const source = async (name) => (await exec(`return game:GetService("ServerScriptService").${name}.Source`))[0]

  test('the capabilities are advertised', () => {
    for (const c of ['scriptRead', 'scriptGrep', 'scriptEdit']) assert.ok(session.hello.capabilities.includes(c), c)
  })

  test('Source assignment above 200,000 bytes fails with "String too long", as in Studio', async () => {
    const r = await call('exec', { script: 'local s = Instance.new("Script") s.Source = string.rep("a", 200001)' })
    assert.equal(r.payload.success, false)
    assert.match(r.payload.error, /String too long/)
    const ok = await exec('local s = Instance.new("Script") s.Source = string.rep("a", 200000) return #s.Source')
    assert.deepEqual(ok, [200000])
  })

  test('read: whole text, a range, hash; NOT_A_SCRIPT and INSTANCE_NOT_FOUND', async () => {
    await make('Reader', 'local a = 1\nlocal b = 2\nreturn a + b\n')
    let r = await call('scriptRead', { path: 'ServerScriptService.Reader' })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.payload.source, 'local a = 1\nlocal b = 2\nreturn a + b\n')
    assert.equal(r.payload.lineCount, 4)
    assert.equal(r.payload.fromEditor, false)
    assert.equal(r.payload.className, 'Script')
    assert.match(r.payload.hash, /^[0-9a-f]{16}$/)
    const hash = r.payload.hash
    r = await call('scriptRead', { path: 'ServerScriptService.Reader', lines: '2-3' })
    assert.deepEqual(r.payload.lines, ['local b = 2', 'return a + b'])
    assert.equal(r.payload.firstLine, 2)
    assert.equal(r.payload.hash, hash, 'the hash is of the whole text')
    r = await call('scriptRead', { path: 'ServerScriptService.Reader', lines: '9-' })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    assert.match(r.error.message, /has 4 lines/)
    r = await call('scriptRead', { path: 'Workspace' })
    assert.equal(r.error.code, 'NOT_A_SCRIPT')
    r = await call('scriptRead', { path: 'ServerScriptService.Nope' })
    assert.equal(r.error.code, 'INSTANCE_NOT_FOUND')
    assert.equal(r.error.details.missingSegment, 'Nope')
  })

  test('unsaved editor text is read, and kept by an edit elsewhere in the file', async () => {
    await make('Drafty', 'local x = 1\nlocal y = 2\nprint(x, y)\n')
    // the user opens the script and types on line 1 without saving
    await exec(`local ses = game:GetService("ScriptEditorService")
      local s = game:GetService("ServerScriptService").Drafty
      assert(ses:OpenScriptDocumentAsync(s))
      local doc = ses:FindScriptDocument(s)
      assert(doc:EditTextAsync("local x = 100 -- typed", 1, 1, 1, 12))
      return doc:GetText()`)
    let r = await call('scriptRead', { path: 'ServerScriptService.Drafty' })
    assert.equal(r.payload.fromEditor, true)
    assert.equal(r.payload.source, 'local x = 100 -- typed\nlocal y = 2\nprint(x, y)\n')
    assert.equal(await source('Drafty'), 'local x = 1\nlocal y = 2\nprint(x, y)\n', 'Source is still the saved text')
    r = await call('scriptEdit', { path: 'ServerScriptService.Drafty', find: 'local y = 2', replace: 'local y = 3', expectHash: r.payload.hash })
    assert.equal(r.ok, true, JSON.stringify(r))
    assert.equal(r.payload.scripts[0].fromEditor, true)
    assert.match(r.payload.scripts[0].diff, /-local y = 2\n\+local y = 3/)
    r = await call('scriptRead', { path: 'ServerScriptService.Drafty' })
    assert.equal(r.payload.source, 'local x = 100 -- typed\nlocal y = 3\nprint(x, y)\n', 'the typed line survives')
    // the edit joined the editor's own undo
    assert.equal(await window.history('editor-undo', 'ServerScriptService.Drafty'), 'editor ServerScriptService.Drafty')
    r = await call('scriptRead', { path: 'ServerScriptService.Drafty' })
    assert.equal(r.payload.source, 'local x = 100 -- typed\nlocal y = 2\nprint(x, y)\n')
  })

  test('SCRIPT_CHANGED when the text moved after it was read; nothing written', async () => {
    await make('Racy', 'return 1\n')
    const read = await call('scriptRead', { path: 'ServerScriptService.Racy' })
    await exec('game:GetService("ServerScriptService").Racy.Source = "return 2\\n"')
    const r = await call('scriptEdit', { path: 'ServerScriptService.Racy', find: 'return', replace: 'return -', expectHash: read.payload.hash })
    assert.equal(r.error?.code, 'SCRIPT_CHANGED', JSON.stringify(r))
    assert.equal(r.error.details.expectedHash, read.payload.hash)
    assert.match(r.error.message, /read it again/)
    assert.equal(await source('Racy'), 'return 2\n')
  })

  test('two edits from the same read: one is written, the other answers SCRIPT_CHANGED', async () => {
    await make('Both', 'v = 0\n')
    const read = await call('scriptRead', { path: 'ServerScriptService.Both' })
    // sent together: whether the second is refused before writing (its hash
    // check in planning) or inside UpdateSourceAsync's callback (after the
    // first wrote during the call's yield), exactly one may win
    const [r1, r2] = await Promise.all([
      call('scriptEdit', { path: 'ServerScriptService.Both', source: 'v = 1\n', expectHash: read.payload.hash }),
      call('scriptEdit', { path: 'ServerScriptService.Both', source: 'v = 2\n', expectHash: read.payload.hash }),
    ])
    const results = [r1, r2]
    const won = results.filter((r) => r.ok)
    const lost = results.filter((r) => !r.ok)
    assert.equal(won.length, 1, JSON.stringify(results))
    assert.equal(lost[0].error.code, 'SCRIPT_CHANGED')
    assert.equal(await source('Both'), won[0] === r1 ? 'v = 1\n' : 'v = 2\n')
  })

  test('NO_MATCH and AMBIGUOUS_MATCH name what to do and the candidate lines', async () => {
    await make('Twice', 'print(1)\nprint(2)\nprint(1)\n')
    let r = await call('scriptEdit', { path: 'ServerScriptService.Twice', find: 'print(3)', replace: 'x' })
    assert.equal(r.error.code, 'NO_MATCH')
    r = await call('scriptEdit', { path: 'ServerScriptService.Twice', find: 'print(1)', replace: 'x' })
    assert.equal(r.error.code, 'AMBIGUOUS_MATCH')
    assert.deepEqual(r.error.details.lines, [1, 3])
    assert.match(r.error.message, /lines 1, 3/)
    r = await call('scriptEdit', { path: 'ServerScriptService.Twice', find: 'print(1)', replace: 'print(9)', all: true })
    assert.equal(r.ok, true)
    assert.equal(await source('Twice'), 'print(9)\nprint(2)\nprint(9)\n')
  })

  test('a 300,000-character script is edited (Source assignment could not)', async () => {
    const big = 'local t = {}\n' + 'x'.repeat(300000) + '\nreturn t\n'
    await exec(`local s = Instance.new("ModuleScript") s.Name = "Big" s.Parent = game:GetService("ServerScriptService")
      game:GetService("ScriptEditorService"):UpdateSourceAsync(s, function() return "local t = {}\\n" .. string.rep("x", 300000) .. "\\nreturn t\\n" end)`)
    let r = await call('scriptRead', { path: 'ServerScriptService.Big' })
    assert.equal(r.payload.source, big)
    r = await call('scriptEdit', { path: 'ServerScriptService.Big', lines: '3', with: 'return { big = true }\n', expectHash: r.payload.hash })
    assert.equal(r.ok, true, JSON.stringify(r.error))
    const after = await exec('local s = game:GetService("ServerScriptService").Big.Source return #s, string.sub(s, -22)')
    assert.deepEqual(after, [big.length - 'return t'.length + 'return { big = true }'.length, 'return { big = true }\n'])
  })

  test('a batch whose third edit fails at write leaves the first two unchanged', async () => {
    await make('A', 'a = 1\n')
    await make('B', 'b = 1\n')
    await make('Locked', 'l = 1\n')
    const r = await call('scriptEdit', {
      edits: [
        { path: 'ServerScriptService.A', find: 'a = 1', replace: 'a = 2' },
        { path: 'ServerScriptService.B', source: 'b = 2\n' },
        { path: 'ServerScriptService.Locked', find: 'l = 1', replace: 'l = 2' },
      ],
    })
    assert.equal(r.error?.code, 'SCRIPT_LOCKED', JSON.stringify(r))
    assert.match(r.error.message, /held by Ana in Team Create/)
    assert.deepEqual(r.error.details.restored.sort(), ['game.ServerScriptService.A', 'game.ServerScriptService.B'])
    assert.deepEqual(r.error.details.notRestored, [])
    assert.equal(await source('A'), 'a = 1\n')
    assert.equal(await source('B'), 'b = 1\n')
    assert.equal(await source('Locked'), 'l = 1\n')
  })

  test('a batch that fails in planning writes nothing; creation and two edits of one script apply', async () => {
    await make('C', 'c = 1\n')
    let r = await call('scriptEdit', {
      edits: [
        { path: 'ServerScriptService.C', find: 'c = 1', replace: 'c = 2' },
        { path: 'ServerScriptService.C', find: 'nothing here', replace: 'x' },
      ],
    })
    assert.equal(r.error.code, 'NO_MATCH')
    assert.equal(await source('C'), 'c = 1\n')
    r = await call('scriptEdit', {
      edits: [
        { path: 'ServerScriptService.C', find: 'c = 1', replace: 'c = 2' },
        { path: 'ServerScriptService.C', lines: '2', with: 'return c' },
        { path: 'ServerScriptService.New', create: true, className: 'Script', runContext: 'Client', source: 'print("new")\n' },
      ],
      expectHashes: {},
    })
    assert.equal(r.ok, true, JSON.stringify(r.error))
    assert.equal(await source('C'), 'c = 2\nreturn c')
    assert.equal(r.payload.scripts[1].created, true)
    assert.deepEqual(await exec('local s = game:GetService("ServerScriptService").New return s.ClassName, s.Source, s.RunContext.Name'), ['Script', 'print("new")\n', 'Client'])
  })

  test('a locked script answers SCRIPT_LOCKED with the reason', async () => {
    const r = await call('scriptEdit', { path: 'ServerScriptService.Locked', source: 'x' })
    assert.equal(r.error.code, 'SCRIPT_LOCKED')
    assert.equal(r.error.details.reason.includes('held by Ana in Team Create'), true)
  })

  test('an edit of a closed script is one undo step (Ctrl+Z)', async () => {
    await make('Undoable', 'u = 1\n')
    const r = await call('scriptEdit', { path: 'ServerScriptService.Undoable', find: 'u = 1', replace: 'u = 2' })
    assert.equal(r.ok, true)
    assert.equal(await source('Undoable'), 'u = 2\n')
    assert.match(await window.history('undo'), /Update source of ServerScriptService.Undoable/)
    assert.equal(await source('Undoable'), 'u = 1\n')
    await window.history('redo')
    assert.equal(await source('Undoable'), 'u = 2\n')
  })

  test('grep pages across the cursor without losing or repeating a match', async () => {
    const lines = []
    for (let i = 1; i <= 7; i++) lines.push(`local needle${i} = ${i}`, 'filler')
    await make('Hay1', lines.join('\n'))
    await make('Hay2', 'NEEDLE upper\nneedle lower\n', 'ModuleScript')
    const all = []
    let cursor
    let pages = 0
    do {
      const r = await call('scriptGrep', { pattern: 'needle', literal: true, root: 'ServerScriptService', maxMatches: 3, cursor })
      assert.equal(r.ok, true, JSON.stringify(r))
      all.push(...r.payload.matches.map((m) => `${m.path}:${m.line}:${m.column}`))
      cursor = r.payload.nextCursor
      pages++
    } while (cursor && pages < 10)
    assert.deepEqual(all, [
      ...[1, 3, 5, 7, 9, 11, 13].map((n) => `game.ServerScriptService.Hay1:${n}:7`),
      'game.ServerScriptService.Hay2:2:1',
    ])
    assert.equal(pages, 3)
    let r = await call('scriptGrep', { pattern: 'NEEDLE', literal: true, ignoreCase: true, root: 'ServerScriptService', classes: ['ModuleScript'], contextLines: 1 })
    assert.deepEqual(r.payload.matches.map((m) => [m.line, m.text, m.before, m.after]), [
      [1, 'NEEDLE upper', [], ['needle lower']],
      [2, 'needle lower', ['NEEDLE upper'], ['']],
    ])
    r = await call('scriptGrep', { pattern: 'needle%d', root: 'ServerScriptService', maxPerScript: 2 })
    assert.equal(r.payload.matches.length, 2)
    assert.deepEqual(r.payload.cutScripts, ['game.ServerScriptService.Hay1'])
    r = await call('scriptGrep', { pattern: '(' })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    assert.match(r.error.message, /bad Luau pattern/)
  })
})

describe('script actions in a playtest', () => {
  let host, stop
  before(async () => {
    ;({ host, stop } = await startWindow((port) => newWindow(port, { clientLocalhost: true }), {
      contexts: ['edit', 'server', 'client'],
      waitMs: 15000,
    }))
  })
  after(async () => {
    await stop()
  })

  test('a read or grep of a server copy needs allowPlay; an edit there is refused', async () => {
    const server = await host.sessionFor('server')
    let r = await host.call(server, 'scriptRead', { path: 'Workspace' })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    assert.match(r.error.message, /copies made at Play/)
    r = await host.call(server, 'scriptGrep', { pattern: 'x', allowPlay: true, root: 'ServerScriptService' })
    assert.equal(r.ok, true, JSON.stringify(r))
    r = await host.call(server, 'scriptRead', { path: 'Workspace', allowPlay: true })
    assert.equal(r.error.code, 'NOT_A_SCRIPT', 'allowPlay lets the read run')
    r = await host.call(server, 'scriptEdit', { path: 'ServerScriptService.X', create: true, className: 'Script' })
    assert.equal(r.error.code, 'INVALID_PAYLOAD')
    assert.match(r.error.message, /vanishes when the test stops/)
  })
})
