// Maps a Rojo project to an instance tree the way Rojo 7 does for the file
// kinds the plugin uses, so the emulator runs exactly the scripts the built
// plugin contains (test/rojo.test.mjs compares this with a real `rojo build`).
//
//   dir/                     Folder, or the script its init file makes it:
//     init.server.luau       Script       (also .lua)
//     init.client.luau       LocalScript
//     init.luau              ModuleScript
//   name.server.luau         Script "name"
//   name.client.luau         LocalScript "name"
//   name.luau                ModuleScript "name"
//
// Other file kinds Rojo would turn into instances (.json, .txt, .csv, .toml,
// .rbxm, .rbxmx, .model.json, .meta.json) are refused with a clear error
// rather than silently skipped; files Rojo ignores (README.md …) are ignored.

import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const SCRIPT_SUFFIXES = [
  ['.server.luau', 'Script'],
  ['.server.lua', 'Script'],
  ['.client.luau', 'LocalScript'],
  ['.client.lua', 'LocalScript'],
  ['.luau', 'ModuleScript'],
  ['.lua', 'ModuleScript'],
]
const UNSUPPORTED = ['.model.json', '.meta.json', '.project.json', '.json', '.txt', '.csv', '.toml', '.rbxm', '.rbxmx', '.yaml', '.yml']

function scriptKind(file) {
  for (const [suffix, className] of SCRIPT_SUFFIXES) {
    if (file.endsWith(suffix)) return { className, name: file.slice(0, -suffix.length) }
  }
  return null
}

function readSource(file) {
  // Rojo reads sources as UTF-8 and normalises nothing else.
  return readFileSync(file, 'utf8')
}

function fromDirectory(name, dir) {
  const entries = readdirSync(dir).sort()
  let node = { className: 'Folder', name, children: [] }
  for (const entry of entries) {
    const kind = scriptKind(entry)
    if (kind && kind.name === 'init') {
      node = { className: kind.className, name, source: readSource(path.join(dir, entry)), children: [] }
    }
  }
  for (const entry of entries) {
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) {
      node.children.push(fromDirectory(entry, full))
      continue
    }
    const kind = scriptKind(entry)
    if (kind) {
      if (kind.name !== 'init') node.children.push({ className: kind.className, name: kind.name, source: readSource(full), children: [] })
      continue
    }
    const unsupported = UNSUPPORTED.find((s) => entry.endsWith(s))
    if (unsupported) {
      throw new Error(`${full}: Rojo maps ${unsupported} files to instances but the studio emulator does not support them yet; extend test/emulator/src/rojo.mjs`)
    }
  }
  return node
}

function fromPath(name, target) {
  const st = statSync(target)
  if (st.isDirectory()) return fromDirectory(name, target)
  const kind = scriptKind(path.basename(target))
  if (!kind) throw new Error(`${target}: unsupported $path target for the studio emulator`)
  return { className: kind.className, name, source: readSource(target), children: [] }
}

function buildNode(name, spec, base) {
  let node
  if (spec.$path) {
    node = fromPath(name, path.resolve(base, spec.$path))
    if (spec.$className && spec.$className !== node.className) {
      throw new Error(`project node ${name}: $className ${spec.$className} conflicts with $path (${node.className})`)
    }
  } else {
    node = { className: spec.$className || 'Folder', name, children: [] }
  }
  if (spec.$properties) {
    throw new Error(`project node ${name}: $properties are not supported by the studio emulator`)
  }
  for (const [key, child] of Object.entries(spec)) {
    if (!key.startsWith('$')) node.children.push(buildNode(key, child, base))
  }
  return node
}

// Maps one file or folder as a Rojo $path would: { className, name,
// source?, children }.
export function loadRojoPath(name, target) {
  return fromPath(name, target)
}

// Loads a Rojo project file and returns its root instance tree:
// { className, name, source?, children: [...] }.
export function loadRojoProject(projectFile) {
  const project = JSON.parse(readFileSync(projectFile, 'utf8'))
  if (!project.name || !project.tree) throw new Error(`${projectFile}: not a Rojo project (needs "name" and "tree")`)
  return buildNode(project.name, project.tree, path.dirname(projectFile))
}
