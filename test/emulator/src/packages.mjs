// Fixture nodes that come from an npm package instead of being written out:
//
//   { "className": "ModuleScript", "name": "TestEZ",
//     "package": "@rbxts/testez", "packagePath": "src" }
//
// or from a whole npm scope of packages that one pinned package brings in
// (Jest-Lua: @rbxts/jest depends on the ~50 @rbxts-js/* packages, locked by
// package-lock.json), laid out as roblox-ts lays out node_modules: a Folder
// holding one instance per package, named and rooted as the package's own
// default.project.json says ("name", "tree.$path"), so the packages'
// requires of each other (script.Parent.JestCore) resolve:
//
//   { "className": "Folder", "name": "@rbxts-js",
//     "packageScope": "@rbxts-js", "via": "@rbxts/jest" }
//
// The package must be one the emulator's package.json pins (a test
// dependency, installed by `npm ci`); its folder at packagePath is mapped to
// instances the way Rojo maps a folder (src/rojo.mjs: init.lua(u) makes the
// folder a ModuleScript, name.lua(u) a ModuleScript child), and each script's
// source becomes the node's Source property. Third-party Luau (TestEZ) thus
// reaches the emulated place unmodified, through the package manager, and is
// never copied into the repository.

import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadRojoPath } from './rojo.mjs'

const require = createRequire(import.meta.url)
const manifest = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8'))

// packageRoot finds an installed package the emulator pins, checking that
// the installed version is the pinned one.
export function packageRoot(name) {
  const pinned = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name]
  if (!pinned) throw new Error(`fixture package ${name}: not a dependency of test/emulator/package.json`)
  let pkgJson
  try {
    pkgJson = require.resolve(`${name}/package.json`)
  } catch {
    throw new Error(`fixture package ${name}: not installed; run npm ci --prefix test/emulator`)
  }
  const version = JSON.parse(readFileSync(pkgJson, 'utf8')).version
  if (version !== pinned) throw new Error(`fixture package ${name}: ${version} is installed, package.json pins ${pinned}; run npm ci --prefix test/emulator`)
  return path.dirname(pkgJson)
}

function toFixtureNode(node) {
  const out = { className: node.className, name: node.name }
  if (node.source !== undefined) out.properties = { Source: node.source }
  if (node.children.length) out.children = node.children.map(toFixtureNode)
  return out
}

// scopeNode builds a packageScope node: via must be pinned and installed;
// the scope's packages are those installed beside it.
function scopeNode(node) {
  const viaRoot = packageRoot(node.via)
  const nodeModules = node.via.startsWith('@') ? path.dirname(path.dirname(viaRoot)) : path.dirname(viaRoot)
  const dir = path.join(nodeModules, node.packageScope)
  let names
  try {
    names = readdirSync(dir).sort()
  } catch {
    throw new Error(`fixture package scope ${node.packageScope}: not installed beside ${node.via}; run npm ci --prefix test/emulator`)
  }
  const children = []
  const seen = new Set()
  for (const name of names) {
    const pkg = path.join(dir, name)
    let project
    try {
      project = JSON.parse(readFileSync(path.join(pkg, 'default.project.json'), 'utf8'))
    } catch (err) {
      throw new Error(`fixture package ${node.packageScope}/${name}: no readable default.project.json (${err.message})`)
    }
    if (typeof project.name !== 'string' || typeof project.tree?.$path !== 'string') {
      throw new Error(`fixture package ${node.packageScope}/${name}: default.project.json needs name and tree.$path`)
    }
    if (seen.has(project.name)) throw new Error(`fixture package scope ${node.packageScope}: two packages are named ${project.name}`)
    seen.add(project.name)
    children.push(toFixtureNode(loadRojoPath(project.name, path.join(pkg, project.tree.$path))))
  }
  return { className: node.className || 'Folder', name: node.name, children }
}

// expandPackages replaces every package node of a fixture's trees (in
// place) with the instance tree its package folder maps to.
export function expandPackages(fixture) {
  const walk = (nodes) => {
    for (let i = 0; i < (nodes || []).length; i++) {
      const node = nodes[i]
      if (node.packageScope) {
        nodes[i] = scopeNode(node)
      } else if (node.package) {
        const dir = path.join(packageRoot(node.package), node.packagePath || '')
        const built = toFixtureNode(loadRojoPath(node.name, dir))
        if (node.className && node.className !== built.className) {
          throw new Error(`fixture package ${node.package}: ${node.name} is a ${built.className}, the fixture says ${node.className}`)
        }
        nodes[i] = built
      } else {
        walk(node.children)
      }
    }
  }
  walk(fixture.tree)
  for (const nodes of Object.values(fixture.contexts || {})) walk(nodes)
  return fixture
}
