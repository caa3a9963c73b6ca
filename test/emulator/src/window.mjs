// One emulated Studio window: one process's shared state (plugin settings,
// process start time, GUID source, faults) and its DataModels — edit, and
// in Play mode server and client.

import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadClassDb } from './classdb.mjs'
import { Faults } from './faults.mjs'
import { expandPackages } from './packages.mjs'
import { loadRojoProject } from './rojo.mjs'
import { StudioTest } from './studiotest.mjs'
import { DataModel } from './vm.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = path.resolve(here, '..', '..', '..')
export const DEFAULT_FIXTURE = path.join(here, '..', 'fixtures', 'default.json')
export const DEFAULT_PROJECT = path.join(REPO_ROOT, 'plugin', 'default.project.json')

// Workspace.SignalBehavior values the emulator implements: Deferred (Studio's
// default) and Immediate.
export const SIGNAL_BEHAVIORS = ['Deferred', 'Immediate']

const MESSAGE_LABEL = {
  MessageOutput: '',
  MessageInfo: 'INFO ',
  MessageWarning: 'WARN ',
  MessageError: 'ERROR ',
}

export class Window {
  // options: { port, contexts, instance, place, placeId, gameId, fixture,
  //            project, signalBehavior, faults, quiet, settingsFile, out,
  //            err, recordApi }
  constructor(options) {
    this.options = options
    this.startedAt = performance.now()
    this.classDb = loadClassDb()
    this.settings = new Map()
    this.models = new Map()
    this.guidCount = 0
    this.out = options.out || ((line) => process.stdout.write(line + '\n'))
    this.err = options.err || ((line) => process.stderr.write(line + '\n'))
    this.outputListeners = []
    this.uiListeners = [] // (context, kind, id, state): toolbar buttons going active/inactive
    this.faults = new Faults(options.faults || [], this)
    this.studioTest = new StudioTest(this)
    this.fixture = JSON.parse(readFileSync(options.fixture || DEFAULT_FIXTURE, 'utf8'))
    expandPackages(this.fixture) // package nodes (TestEZ) become their instance trees
    validateFixture(this.fixture, this.classDb)
    this.signalBehavior = options.signalBehavior ?? this.fixture.signalBehavior ?? 'Deferred'
    if (!SIGNAL_BEHAVIORS.includes(this.signalBehavior)) {
      throw new Error(`signal behavior ${this.signalBehavior}: want ${SIGNAL_BEHAVIORS.join(' or ')}`)
    }
    const project = options.project || DEFAULT_PROJECT
    this.pluginTree = options.noPlugin ? null : loadRojoProject(project)
    if (options.settingsFile) {
      try {
        for (const [k, v] of Object.entries(JSON.parse(readFileSync(options.settingsFile, 'utf8')))) {
          this.settings.set(k, JSON.stringify(v))
        }
      } catch {}
    }
    // The user configured the port in the plugin's settings before.
    if (options.port) this.settings.set('Port', JSON.stringify(options.port))
    for (const [k, v] of Object.entries(options.pluginSettings || {})) this.settings.set(k, JSON.stringify(v))
  }

  log(...args) {
    if (!this.options.quiet) this.err(['emulator:', ...args].join(' '))
  }

  fatal(message) {
    this.err(`emulator: fatal: ${message}`)
    if (this.options.onFatal) this.options.onFatal(message)
    else process.exit(70)
  }

  onOutput(context, messageType, message) {
    if (!this.options.quiet) this.out(`[${context}] ${MESSAGE_LABEL[messageType] ?? ''}${message}`)
    for (const l of this.outputListeners) l(context, messageType, message)
  }

  onUi(context, kind, id, state) {
    this.log(`[${context}] ${kind} ${id} is ${state}`)
    for (const l of this.uiListeners) l(context, kind, id, state)
  }

  setSetting(key, json) {
    this.settings.set(key, json)
    if (this.options.settingsFile) {
      const obj = {}
      for (const [k, v] of this.settings) obj[k] = JSON.parse(v)
      writeFileSync(this.options.settingsFile, JSON.stringify(obj, null, 2))
    }
  }

  // HttpService:GenerateGUID. With --instance, the edit DataModel's first
  // GUID is that id (the plugin uses its first GUID as the window's
  // instanceId), so tests can name windows.
  nextGuid(context) {
    this.guidCount += 1
    if (this.options.instance && context === 'edit' && !this.instanceGuidUsed) {
      this.instanceGuidUsed = true
      return this.options.instance
    }
    return randomUUID().toUpperCase()
  }

  config(context) {
    const place = this.fixture.place || {}
    return {
      context,
      placeName: this.options.place ?? place.name ?? 'Place1',
      placeId: this.options.placeId ?? place.placeId ?? 0,
      gameId: this.options.gameId ?? place.gameId ?? 0,
      jobId: context === 'edit' ? '' : randomUUID(),
      httpEnabled: false,
      loadStringEnabled: !!this.fixture.loadStringEnabled,
      signalBehavior: this.signalBehavior,
      // Run (F8): the simulation's server DataModel, which is client and
      // server at once and has a viewport (see README, "Run mode")
      runMode: this.runMode === true && context === 'server',
      screenshot: { width: 320, height: 200, ...(this.fixture.screenshot || {}) },
      startScripts: this.options.startScripts !== false,
    }
  }

  async startModel(context) {
    if (this.models.has(context)) return this.models.get(context)
    const dm = new DataModel(this, context)
    this.models.set(context, dm)
    await dm.start({ config: this.config(context), fixture: this.fixture, pluginTree: this.pluginTree })
    this.log(`${context} DataModel started`)
    return dm
  }

  async stopModel(context) {
    const dm = this.models.get(context)
    if (!dm) return
    this.models.delete(context)
    await dm.stop()
    this.log(`${context} DataModel stopped`)
  }

  async start(contexts) {
    for (const c of contexts) await this.startModel(c)
    this.faults.start()
  }

  // Play: the edit DataModel stays; a server and a client start.
  async play() {
    await this.startModel('server')
    await this.startModel('client')
  }

  // Run (F8): the edit DataModel stays; one server DataModel in run mode
  // starts, and no client.
  async run() {
    if (this.models.has('server') || this.models.has('client')) throw new Error('already playing or running; stop first')
    this.runMode = true
    await this.startModel('server')
  }

  async stopPlay() {
    const wasTesting = this.models.has('server') || this.models.has('client')
    await this.stopModel('client')
    await this.stopModel('server')
    this.runMode = false
    if (wasTesting) this.studioTest.ended()
  }

  // Ctrl+Z / Ctrl+Y in the edit DataModel: the step's name, or why not.
  async history(which) {
    const edit = this.models.get('edit')
    if (!edit) throw new Error('no edit DataModel')
    return edit.command(which)
  }

  async setRunState(state) {
    for (const c of ['server', 'client']) {
      const dm = this.models.get(c)
      if (dm) await dm.command('runState', state)
    }
  }

  async apiUsage() {
    const used = new Set()
    const provided = new Set()
    for (const dm of this.models.values()) {
      for (const k of String((await dm.command('usage')) || '').split('\n')) if (k) used.add(k)
      for (const k of String((await dm.command('provided')) || '').split('\n')) if (k) provided.add(k)
    }
    return { used: [...used].sort(), provided: [...provided].sort() }
  }

  async shutdown() {
    this.faults.stop()
    if (this.options.recordApi) {
      try {
        writeFileSync(this.options.recordApi, JSON.stringify(await this.apiUsage(), null, 2))
      } catch (err) {
        this.err(`emulator: could not write ${this.options.recordApi}: ${err.message}`)
      }
    }
    for (const c of ['client', 'server', 'edit']) await this.stopModel(c)
  }
}

// Every class, property and enum in a fixture must exist in the Roblox API.
export function validateFixture(fixture, db) {
  const problems = []
  const walk = (nodes, where) => {
    for (const node of nodes || []) {
      const at = `${where}.${node.name}`
      if (!node.className || !node.name) problems.push(`${at}: needs className and name`)
      else if (!db.has(node.className)) problems.push(`${at}: unknown class ${node.className}`)
      else {
        for (const [prop, value] of Object.entries(node.properties || {})) {
          const m = db.member(node.className, prop)
          if (!m || m.kind !== 'Property') problems.push(`${at}: ${node.className} has no property ${prop}`)
          if (value && value.$type === 'EnumItem' && db.enumItem(value.enum, value.name) === undefined) {
            problems.push(`${at}.${prop}: unknown enum item ${value.enum}.${value.name}`)
          }
          if (value && value.$type === 'Font') {
            if (db.enumItem('FontWeight', value.weight) === undefined) problems.push(`${at}.${prop}: unknown font weight ${value.weight}`)
            if (db.enumItem('FontStyle', value.style) === undefined) problems.push(`${at}.${prop}: unknown font style ${value.style}`)
          }
        }
      }
      walk(node.children, at)
    }
  }
  walk(fixture.tree, 'game')
  for (const [ctx, nodes] of Object.entries(fixture.contexts || {})) walk(nodes, `game(${ctx})`)
  if (problems.length) throw new Error(`fixture is not valid Roblox:\n  ${problems.join('\n  ')}`)
}
