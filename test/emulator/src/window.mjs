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
import { pairPluginTree } from './pairing.mjs'
import { loadRojoProject } from './rojo.mjs'
import { SettingsStore } from './settings.mjs'
import { StudioTest } from './studiotest.mjs'
import { DataModel } from './vm.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = path.resolve(here, '..', '..', '..')
export const DEFAULT_FIXTURE = path.join(here, '..', 'fixtures', 'default.json')
export const DEFAULT_PROJECT = path.join(REPO_ROOT, 'plugin', 'default.project.json')

// Studio's limits the emulator enforces by default (README, "Studio's
// limits"): WebStreamClients open at once per Studio process, and how long
// Studio keeps one open.
export const DEFAULT_MAX_STREAMS = 4
export const DEFAULT_STREAM_LIFETIME = 1800
export const DEFAULT_VIEWPORT = Object.freeze({ width: 1920, height: 1080 })

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
  //            project, placeProject, signalBehavior, faults, quiet, settingsFile, out,
  //            err, recordApi, maxStreams, foreignStreams, noPluginsInTest, teamCreate,
  //            streamLifetime, clientLocalhost,
  //            pluginConnectionService, placeVersion, fixtureData, onTaskDone,
  //            guid, clock }
  constructor(options) {
    this.options = options
    this.startedAt = performance.now()
    this.classDb = loadClassDb()
    this.models = new Map()
    // WebStreamClient slots in use by all DataModels of this process
    this.maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS
    this.streamLifetime = options.streamLifetime ?? DEFAULT_STREAM_LIFETIME
    if (!(Number.isInteger(this.maxStreams) && this.maxStreams >= 0)) throw new Error(`max streams ${this.maxStreams}: want a whole number >= 0`)
    if (!(this.streamLifetime > 0)) throw new Error(`stream lifetime ${this.streamLifetime}: want seconds > 0`)
    this.openStreams = 0
    // WebStreamClient slots other plugins (Rojo, …) hold in this process
    this.foreignStreams = options.foreignStreams ?? 0
    if (!(Number.isInteger(this.foreignStreams) && this.foreignStreams >= 0)) throw new Error(`foreign streams ${this.foreignStreams}: want a whole number >= 0`)
    this.pcsLinks = new Map() // test DataModel context -> true while its PluginConnection is up
    this.guidCount = 0
    this.out = options.out || ((line) => process.stdout.write(line + '\n'))
    this.err = options.err || ((line) => process.stderr.write(line + '\n'))
    this.outputListeners = []
    this.uiListeners = [] // (context, kind, id, state): toolbar buttons going active/inactive
    this.faults = new Faults(options.faults || [], this)
    this.studioTest = new StudioTest(this)
    // fixtureData: an instance tree already read (and copied here), for
    // callers that start many windows of one place (bin/cloud-task.mjs)
    this.fixture = options.fixtureData ? structuredClone(options.fixtureData) : JSON.parse(readFileSync(options.fixture || DEFAULT_FIXTURE, 'utf8'))
    expandPackages(this.fixture) // package nodes (TestEZ) become their instance trees
    if (options.placeProject) {
      // a game's Rojo project, synced into the place as Rojo would
      const notes = []
      mergeProject(this.fixture, loadRojoProject(options.placeProject, { place: true, notes }))
      for (const note of notes) this.log(`note: ${note}`)
    }
    validateFixture(this.fixture, this.classDb)
    this.signalBehavior = options.signalBehavior ?? this.fixture.signalBehavior ?? 'Deferred'
    if (!SIGNAL_BEHAVIORS.includes(this.signalBehavior)) {
      throw new Error(`signal behavior ${this.signalBehavior}: want ${SIGNAL_BEHAVIORS.join(' or ')}`)
    }
    const project = options.project || DEFAULT_PROJECT
    this.pluginTree = options.noPlugin ? null : loadRojoProject(project)
    // Installed with install-plugin: the pairing key and port in the
    // plugin's Pairing module ({ key, port }); without, unpaired.
    if (this.pluginTree && options.pairing) pairPluginTree(this.pluginTree, options.pairing.key, options.pairing.port)
    this.settings = new SettingsStore(options.settingsFile)
    // The user configured the port in the plugin's settings before.
    if (options.port) this.settings.set(seedKey('Port'), JSON.stringify(options.port))
    for (const [k, v] of Object.entries(options.pluginSettings || {})) this.settings.set(seedKey(k), JSON.stringify(v))
  }

  // Plugin:GetSetting: the stored value (JSON), or undefined; with the
  // settings-nil fault, undefined at that rate whatever is stored.
  getSetting(key) {
    if (this.faults.settingsNil(key)) return undefined
    return this.settings.get(key)
  }

  // Whether a DataModel may open another WebStreamClient now: a refusal
  // message (as CreateWebStreamClient raises it), or undefined.
  streamRefusal(context) {
    const fault = this.faults.refuseStream(context)
    if (fault) return fault
    if (this.options.teamCreate && context !== 'edit') {
      // --team-create: a Team Test's DataModels cannot open streams
      return 'HttpService:CreateWebStreamClient() failed: not available in Team Test (emulated --team-create)'
    }
    if (this.faults.has('http-denied')) {
      return 'HttpService:CreateWebStreamClient() failed: Http requests are not allowed: the user denied this plugin permission to access 127.0.0.1 (emulated fault http-denied)'
    }
    if (this.openStreams + this.foreignStreams >= this.maxStreams) {
      return `HttpService:CreateWebStreamClient() failed: too many open WebStreamClients (this Studio process allows ${this.maxStreams}${this.foreignStreams ? `; other plugins hold ${this.foreignStreams}` : ''})`
    }
    return undefined
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
    // --log-mirror: in Play the client DataModel's LogService also reports
    // the server's lines (issue 25 item 11; a live report, so opt-in),
    // after the server's own
    if (this.options.logMirror && context === 'server') this.models.get('client')?.push('log-mirror', 0, messageType, message)
  }

  onUi(context, kind, id, state) {
    this.log(`[${context}] ${kind} ${id} is ${state}`)
    for (const l of this.uiListeners) l(context, kind, id, state)
  }

  setSetting(key, json) {
    this.settings.set(key, json)
  }

  // HttpService:GenerateGUID. With --instance, the edit DataModel's first
  // GUID is that id (the plugin uses its first GUID as the window's
  // instanceId), so tests can name windows.
  nextGuid(context) {
    this.guidCount += 1
    // options.guid(context, n) injects the GUIDs (the transcript replays:
    // the plugin's instanceId and hello nonces come from them)
    if (this.options.guid) return this.options.guid(context, this.guidCount)
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
      placeVersion: this.options.placeVersion ?? place.placeVersion ?? 0,
      gameId: this.options.gameId ?? place.gameId ?? 0,
      jobId: context === 'edit' ? '' : randomUUID(),
      // the game's HttpService.HttpEnabled (off by default, as in Studio:
      // the HttpService reference); --http-enabled turns it on
      httpEnabled: this.options.httpEnabled === true,
      // a game server's HTTP budget (500 a minute; --http-requests-per-minute)
      httpRequestsPerMinute: this.options.httpRequestsPerMinute ?? 500,
      loadStringEnabled: !!this.fixture.loadStringEnabled,
      signalBehavior: this.signalBehavior,
      pluginConnectionService: this.pcsEnabled(),
      // Run (F8): the simulation's server DataModel, which is client and
      // server at once and has a viewport (see README, "Run mode")
      runMode: this.runMode === true && context === 'server',
      // --run-mode-client=false: IsClient() is false in the Run DataModel
      runModeClient: this.options.runModeClient !== false,
      // the viewport: --viewport, else the fixture's, else Studio's usual 1920x1080
      screenshot: this.options.viewport ?? { ...DEFAULT_VIEWPORT, ...(this.fixture.screenshot || {}) },
      startScripts: this.options.startScripts !== false,
      largePlace: this.options.largePlace === true,
    }
  }

  async startModel(context) {
    if (this.models.has(context)) return this.models.get(context)
    const dm = new DataModel(this, context)
    this.models.set(context, dm)
    // --no-plugins-in-test: Studio's "Load User Plugins in Test Mode" is off,
    // so a playtest's DataModels run no user plugin (plugin/README.md)
    const pluginTree = context !== 'edit' && this.options.noPluginsInTest ? null : this.pluginTree
    await dm.start({ config: this.config(context), fixture: this.fixture, pluginTree })
    this.log(`${context} DataModel started`)
    this.tellPlaying()
    if (this.pcsEnabled()) {
      if (context === 'edit') {
        for (const c of ['server', 'client']) if (this.models.has(c)) this.linkPcs(c)
      } else if (this.models.has('edit')) {
        this.linkPcs(context)
      }
    }
    return dm
  }

  // The edit DataModel renders only while nothing plays (README, "Studio's
  // limits").
  tellPlaying() {
    const edit = this.models.get('edit')
    if (edit) edit.push('playing', 0, this.models.has('server') || this.models.has('client'))
  }

  pcsEnabled() {
    return this.options.pluginConnectionService !== false
  }

  // PluginConnectionService: the edit DataModel and a test DataModel (server
  // or client) get a PluginConnection to each other, a little after the test
  // DataModel's plugin started (so it first finds none and must wait for
  // PluginConnectionService.Connected, as the reference's example does).
  linkPcs(testContext) {
    const timer = setTimeout(() => {
      const edit = this.models.get('edit')
      const test = this.models.get(testContext)
      if (!edit || !test || this.pcsLinks.has(testContext)) return
      this.pcsLinks.set(testContext, true)
      edit.push('pc-connect', test.pcsId, 'Test')
      test.push('pc-connect', edit.pcsId, 'Edit')
      this.log(`PluginConnection edit <-> ${testContext} connected`)
    }, 100)
    timer.unref()
  }

  unlinkPcs(testContext) {
    if (!this.pcsLinks.delete(testContext)) return
    const edit = this.models.get('edit')
    const test = this.models.get(testContext)
    if (edit && test) edit.push('pc-disconnect', test.pcsId)
    if (edit && test) test.push('pc-disconnect', edit.pcsId)
    this.log(`PluginConnection edit <-> ${testContext} disconnected`)
  }

  // PluginConnection:SendMessage from DataModel `from` to the DataModel
  // whose PluginConnection id is `targetId`: delivered in order.
  pcsSend(from, targetId, message) {
    for (const dm of this.models.values()) {
      if (dm.pcsId === targetId) {
        dm.push('pc-message', from.pcsId, message)
        return true
      }
    }
    return false
  }

  async stopModel(context) {
    const dm = this.models.get(context)
    if (!dm) return
    if (context === 'edit') {
      for (const c of ['server', 'client']) this.unlinkPcs(c)
    } else {
      this.unlinkPcs(context)
    }
    this.models.delete(context)
    this.tellPlaying()
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
  async history(which, arg) {
    const edit = this.models.get('edit')
    if (!edit) throw new Error('no edit DataModel')
    return edit.command(which, arg)
  }

  // Studio reloads the plugin in one DataModel: Unloading for the running
  // copy, then a new copy starts (runtime/boot.luau, "reload").
  async reloadPlugin(context = 'edit') {
    const dm = this.models.get(context)
    if (!dm) throw new Error(`no ${context} DataModel to reload the plugin in`)
    await dm.command('reload')
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

// A --port or --setting key as the plugin stores it: every key the plugin
// writes starts with StudioBridge (plugin/README.md, "Settings").
export function seedKey(key) {
  return key.startsWith('StudioBridge') ? key : `StudioBridge${key}`
}

// A Rojo tree node as a fixture node.
function fixtureNode(node) {
  const out = { className: node.className, name: node.name }
  const properties = { ...(node.properties || {}) }
  if (node.source !== undefined) properties.Source = node.source
  if (Object.keys(properties).length) out.properties = properties
  if (node.children.length) out.children = node.children.map(fixtureNode)
  return out
}

// mergeProject adds a place project's tree (its DataModel's services) to a
// fixture's: into the fixture's service of the same name, else as a new one.
export function mergeProject(fixture, root) {
  if (root.className !== 'DataModel') throw new Error(`place project ${root.name}: its tree must be a DataModel ($className "DataModel"), not a ${root.className}`)
  fixture.tree ??= []
  for (const service of root.children) {
    const node = fixtureNode(service)
    const existing = fixture.tree.find((n) => n.name === node.name)
    if (!existing) {
      fixture.tree.push(node)
      continue
    }
    if (existing.className !== node.className) throw new Error(`place project: ${node.name} is a ${node.className}, the fixture's is a ${existing.className}`)
    existing.children = [...(existing.children || []), ...(node.children || [])]
  }
  return fixture
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
