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
//
// A place project (loadRojoProject(file, { place: true }), the emulator's
// --place-project) maps two more kinds, as a game's code uses them:
//   name.model.json          the instance it describes ({className,
//                            properties?, children?}), named "name";
//                            properties of type string, number or boolean
//                            are set, any other is skipped with a note
//   name.meta.json,          skipped with a note: the properties and
//   init.meta.json           attributes they set on a script or folder are
//                            not applied (the emulator's scripts run the
//                            same without them)
// and names a project node with no $className or $path as Rojo infers it:
// a child of the DataModel is the service of that name, StarterPlayer's
// StarterPlayerScripts and StarterCharacterScripts are those classes.

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

// opts: { place: boolean, notes: string[] } (see the header).
function fromDirectory(name, dir, opts) {
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
      node.children.push(fromDirectory(entry, full, opts))
      continue
    }
    const kind = scriptKind(entry)
    if (kind) {
      if (kind.name !== 'init') node.children.push({ className: kind.className, name: kind.name, source: readSource(full), children: [] })
      continue
    }
    if (opts?.place && entry.endsWith('.model.json')) {
      node.children.push(fromModelJson(entry.slice(0, -'.model.json'.length), full, opts))
      continue
    }
    if (opts?.place && entry.endsWith('.meta.json')) {
      opts.notes.push(`${full}: .meta.json skipped (its properties and attributes are not applied by the studio emulator)`)
      continue
    }
    const unsupported = UNSUPPORTED.find((s) => entry.endsWith(s))
    if (unsupported) {
      throw new Error(`${full}: Rojo maps ${unsupported} files to instances but the studio emulator does not support them yet; extend test/emulator/src/rojo.mjs`)
    }
  }
  return node
}

// A .model.json file: { className, properties?, children? } (children
// carry a name).
function fromModelJson(name, file, opts) {
  let model
  try {
    model = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`${file}: not JSON (${err.message})`)
  }
  const build = (spec, instanceName, where) => {
    if (typeof spec?.className !== 'string') throw new Error(`${file}: ${where} needs a className`)
    const node = { className: spec.className, name: instanceName, children: [] }
    for (const [key, value] of Object.entries(spec.properties || {})) {
      if (['string', 'number', 'boolean'].includes(typeof value)) {
        node.properties ??= {}
        node.properties[key] = value
      } else {
        opts.notes.push(`${file}: property ${key} of ${where} skipped (only strings, numbers and booleans are applied by the studio emulator)`)
      }
    }
    for (const [i, child] of (spec.children || []).entries()) {
      if (typeof child?.name !== 'string') throw new Error(`${file}: child ${i + 1} of ${where} needs a name`)
      node.children.push(build(child, child.name, `${where}.${child.name}`))
    }
    return node
  }
  return build(model, name, name)
}

function fromPath(name, target, opts) {
  const st = statSync(target)
  if (st.isDirectory()) return fromDirectory(name, target, opts)
  const kind = scriptKind(path.basename(target))
  if (!kind) throw new Error(`${target}: unsupported $path target for the studio emulator`)
  return { className: kind.className, name, source: readSource(target), children: [] }
}

// What Rojo names a project node with neither $className nor $path.
function inferClassName(name, parentClass, opts) {
  if (!opts?.place) return 'Folder'
  if (parentClass === 'DataModel') return name
  if (parentClass === 'StarterPlayer' && (name === 'StarterPlayerScripts' || name === 'StarterCharacterScripts')) return name
  return 'Folder'
}

function buildNode(name, spec, base, opts, parentClass) {
  let node
  if (spec.$path) {
    node = fromPath(name, path.resolve(base, spec.$path), opts)
    if (spec.$className && spec.$className !== node.className) {
      throw new Error(`project node ${name}: $className ${spec.$className} conflicts with $path (${node.className})`)
    }
  } else {
    node = { className: spec.$className || inferClassName(name, parentClass, opts), name, children: [] }
  }
  if (spec.$properties) {
    throw new Error(`project node ${name}: $properties are not supported by the studio emulator`)
  }
  for (const [key, child] of Object.entries(spec)) {
    if (!key.startsWith('$')) node.children.push(buildNode(key, child, base, opts, node.className))
  }
  return node
}

// Maps one file or folder as a Rojo $path would: { className, name,
// source?, children }.
export function loadRojoPath(name, target) {
  return fromPath(name, target)
}

// Loads a Rojo project file and returns its root instance tree:
// { className, name, source?, properties?, children: [...] }. With
// { place: true } it maps a game's project (see the header) and collects
// what it skipped in notes.
export function loadRojoProject(projectFile, { place = false, notes = [] } = {}) {
  const project = JSON.parse(readFileSync(projectFile, 'utf8'))
  if (!project.name || !project.tree) throw new Error(`${projectFile}: not a Rojo project (needs "name" and "tree")`)
  return buildNode(project.name, project.tree, path.dirname(projectFile), place ? { place, notes } : undefined, undefined)
}
