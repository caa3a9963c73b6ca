// The Roblox API as the pinned npm @rbxts/types ships it: classes (with
// superclass, tags and members, split by the security level a member needs),
// enums and their items, and the members of the built-in data types.
//
// The emulator uses it to know class inheritance (IsA), which properties a
// class has, enum values, and which services exist; the API truth check uses
// it to prove every API the plugin and the mocks touch is real and open to
// plugins.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const require = createRequire(import.meta.url)

export function typesDir() {
  return path.join(path.dirname(require.resolve('@rbxts/types/package.json')), 'include')
}

export function typesVersion() {
  return require('@rbxts/types/package.json').version
}

// Security levels a plugin has. Members needing anything else (LocalUser,
// RobloxScript, Roblox…) are absent from both files and count as unknown.
export const PLUGIN_LEVELS = ['None', 'PluginSecurity']

function stripComments(src) {
  return src.replace(/\/\*[\s\S]*?\*\//g, (m) => {
    // keep the Tags line of doc comments, which says NotCreatable / Service
    const tags = /-\s*\*\*Tags\*\*:\s*([^\n]*)/.exec(m)
    return tags ? `/*TAGS:${tags[1].trim()}*/` : ''
  })
}

function parseClassFile(file, security, classes) {
  const src = stripComments(readFileSync(file, 'utf8'))
  const re = /(?:\/\*TAGS:([^*]*)\*\/\s*)?^interface (\w+)(?:<[^>]*>)?(?: extends (\w+)(?:<[^{]*>)?)? \{\n([\s\S]*?)^\}/gm
  let m
  while ((m = re.exec(src))) {
    const [, tagText, rawName, rawSuper, body] = m
    const name = rawName === 'RBXObject' ? 'Object' : rawName
    if (rawName !== 'RBXObject' && !rawSuper) continue // Services, Instances … (type maps, not classes)
    const superclass = rawSuper === 'RBXObject' ? 'Object' : rawSuper || null
    let cls = classes.get(name)
    if (!cls) {
      cls = { name, superclass, tags: [], members: new Map() }
      classes.set(name, cls)
    }
    if (tagText) cls.tags = tagText.split(',').map((t) => t.trim()).filter(Boolean)
    for (const line of body.split('\n')) {
      const getter = /^ {4}get (\w+)\(\): (.*);$/.exec(line)
      if (getter) {
        addMember(cls, getter[1], 'Property', security, { readonly: true })
        continue
      }
      // a setter at a level plugins have (RunContext: read in None, written
      // with PluginSecurity) makes the property writable
      const setter = /^ {4}set (\w+)\(value: .*\);$/.exec(line)
      if (setter) {
        const member = cls.members.get(setter[1])
        if (member) member.readonly = false
        else addMember(cls, setter[1], 'Property', security, { readonly: false })
        continue
      }
      const method = /^ {4}(\w+)(?:<[^(]*>)?\(this/.exec(line)
      if (method) {
        addMember(cls, method[1], 'Method', security)
        continue
      }
      const prop = /^ {4}(readonly )?(\w+)\??: (.*);$/.exec(line)
      if (prop) {
        const [, , pname, ptype] = prop
        if (pname.startsWith('_nominal_')) continue
        const kind = /^RBXScriptSignal\b/.test(ptype) || (pname === 'Changed' && ptype === 'unknown') ? 'Event' : 'Property'
        addMember(cls, pname, kind, security, { readonly: !!prop[1] })
      }
    }
  }
}

function addMember(cls, name, kind, security, extra = {}) {
  if (!cls.members.has(name)) cls.members.set(name, { name, kind, security, ...extra })
}

function parseEnums(file) {
  const src = readFileSync(file, 'utf8')
  const enums = new Map()
  const nsRe = /^ {4}export namespace (\w+) \{\n([\s\S]*?)^ {4}\}/gm
  let m
  while ((m = nsRe.exec(src))) {
    const [, name, body] = m
    const items = new Map()
    const itemRe = /export interface (\w+) extends globalThis\.EnumItem \{\s*Name: "([^"]+)";\s*Value: (-?\d+);/g
    let im
    while ((im = itemRe.exec(body))) items.set(im[2], Number(im[3]))
    enums.set(name, items)
  }
  return enums
}

// Data types (Vector3, CFrame …): instance members and constructor members.
function parseDataTypes(file, enumsFile) {
  const src = stripComments(readFileSync(file, 'utf8'))
  const types = new Map()
  const re = /^interface (\w+)(?:<[^\n]*>)? \{\n([\s\S]*?)^\}/gm
  for (const text of [src, stripComments(readFileSync(enumsFile, 'utf8'))]) {
    let m
    re.lastIndex = 0
    while ((m = re.exec(text))) {
      const [, name, body] = m
      const members = types.get(name) ?? new Set()
      for (const line of body.split('\n')) {
        const mm = /^(?:\t| {4})(?:readonly )?(\w+)\??(?:<[^(]*>)?[:(]/.exec(line)
        if (mm && !mm[1].startsWith('_nominal_')) members.add(mm[1])
        if (/^(?:\t| {4})new ?[(<]/.test(line)) members.add('new')
      }
      types.set(name, members)
    }
  }
  let m
  // `type XConstructor = new (...) => X` declares only a constructor
  const ctorRe = /^type (\w+)Constructor = new /gm
  while ((m = ctorRe.exec(src))) types.set(`${m[1]}Constructor`, new Set(['new']))
  const globals = new Set()
  for (const g of src.matchAll(/^declare (?:const|function) (\w+)/gm)) globals.add(g[1])
  const namespaces = new Map()
  for (const ns of src.matchAll(/^declare namespace (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const fns = new Set([...ns[2].matchAll(/^\t(?:function|const) (\w+)/gm)].map((x) => x[1]))
    namespaces.set(ns[1], fns)
  }
  return { types, globals, namespaces }
}

let cached = null

export function loadClassDb() {
  if (cached) return cached
  const dir = typesDir()
  const classes = new Map()
  parseClassFile(path.join(dir, 'generated', 'None.d.ts'), 'None', classes)
  parseClassFile(path.join(dir, 'generated', 'PluginSecurity.d.ts'), 'PluginSecurity', classes)
  const enums = parseEnums(path.join(dir, 'generated', 'enums.d.ts'))
  const roblox = parseDataTypes(path.join(dir, 'roblox.d.ts'), path.join(dir, 'generated', 'enums.d.ts'))
  const pluginDecl = readFileSync(path.join(dir, '..', 'plugin.d.ts'), 'utf8')
  for (const g of pluginDecl.matchAll(/^declare (?:const|function) (\w+)/gm)) roblox.globals.add(g[1])
  cached = new ClassDb(classes, enums, roblox)
  return cached
}

export class ClassDb {
  constructor(classes, enums, roblox) {
    this.classes = classes
    this.enums = enums
    this.dataTypes = roblox.types
    this.globals = roblox.globals
    this.namespaces = roblox.namespaces
  }

  has(className) {
    return this.classes.has(className)
  }

  // The class and its ancestors, most derived first.
  chain(className) {
    const out = []
    let c = this.classes.get(className)
    while (c) {
      out.push(c.name)
      c = c.superclass ? this.classes.get(c.superclass) : null
    }
    return out
  }

  isA(className, ancestor) {
    return this.chain(className).includes(ancestor)
  }

  // The member as a plugin sees it (searching ancestors), or null.
  member(className, memberName) {
    for (const name of this.chain(className)) {
      const m = this.classes.get(name).members.get(memberName)
      if (m) return { ...m, owner: name }
    }
    return null
  }

  isService(className) {
    return this.classes.get(className)?.tags.includes('Service') ?? false
  }

  isCreatable(className) {
    const c = this.classes.get(className)
    return !!c && !c.tags.includes('NotCreatable') && !c.tags.includes('Service')
  }

  enumItem(enumName, itemName) {
    return this.enums.get(enumName)?.get(itemName)
  }

  // A compact description of one class for the Luau runtime.
  describe(className) {
    const c = this.classes.get(className)
    if (!c) return null
    const members = {}
    for (const [name, m] of c.members) members[name] = m.kind === 'Property' && m.readonly ? 'ReadOnlyProperty' : m.kind
    return { name: c.name, superclass: c.superclass, tags: c.tags, members }
  }
}
