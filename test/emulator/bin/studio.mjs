#!/usr/bin/env node
// Runs one emulated Roblox Studio window with the studio-bridge plugin until
// killed. See test/emulator/README.md.

import { createInterface } from 'node:readline'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { isMainThread, parentPort } from 'node:worker_threads'

// The window runs in a worker thread, so that a Luau script that never
// yields cannot make the process deaf to SIGINT/SIGTERM (src/supervisor.mjs):
// the main thread stops here, and this file goes on in the worker.
if (isMainThread) await (await import('../src/supervisor.mjs')).supervise(import.meta.url, process.argv.slice(2))
const { MSG_SIGNAL, MSG_STOPPING } = await import('../src/supervisor.mjs')
// SIGINT, SIGTERM (and Ctrl-Break on Windows) reach the main thread, which
// passes them on; this answers at once that the shutdown has begun. Until
// the window exists there is nothing to unload.
let shutdown = (code) => process.exit(code)
parentPort.on('message', (m) => {
  if (m?.type !== MSG_SIGNAL) return
  parentPort.postMessage({ type: MSG_STOPPING })
  shutdown(0)
})
parentPort.unref() // listening keeps the window no more alive than signal handlers did
const { configDir, DEFAULT_PORT, pairingKey, resolveToken } = await import('../src/pairing.mjs')
const { Window } = await import('../src/window.mjs')
const { readDoctorReport } = await import('../src/doctor.mjs')

const USAGE = `usage: node test/emulator/bin/studio.mjs --port <p> [options]

Runs one emulated Roblox Studio window whose studio-bridge plugin (the real
Luau source in plugin/, as Rojo maps it) connects to the host on <p>.

options:
  --port <p>            the port set in the plugin's settings (default: the
                        plugin's default, 38741)
  --context <c>         run a single DataModel: edit, server or client
                        (default: edit)
  --play                run the window in Play mode: edit, server and client
  --run                 run the window in Run mode (F8): edit, and a server
                        DataModel in run mode (no client)
  --instance <id>       the window's first GUID, which the plugin uses as its
                        instanceId (default: a random GUID); not with
                        --context server|client, whose id the plugin derives
  --place <name>        the place name (game.Name); default: the fixture's
  --place-id <n>        game.PlaceId; default: the fixture's
  --game-id <n>         game.GameId; default: the fixture's
  --fixture <file>      instance tree JSON (default: fixtures/default.json)
  --project <file>      Rojo project of the plugin (default: plugin/default.project.json)
  --config-dir <dir>    pair the plugin with the token of this studio-bridge
                        config directory (default: STUDIO_BRIDGE_CONFIG_DIR,
                        else the user's), as if \`studio-bridge install-plugin
                        --port <p>\` had just installed it; STUDIO_BRIDGE_TOKEN
                        wins, as it does for studio-bridge
  --unpaired            run the plugin as the Rojo build leaves it, with no
                        pairing key (every host refuses it)
  --place-project <file>
                        a game's Rojo project (default.project.json) synced
                        into the place, as Rojo serve would, over the fixture
  --signal-behavior <b> Deferred (Studio's default) or Immediate: when event
                        handlers run (Workspace.SignalBehavior); default:
                        the fixture's signalBehavior, else Deferred
  --fault <spec>        inject a fault (repeatable): drop:<action>[:always],
                        stall:<action>:<seconds>, refuse-stream[:<n>],
                        log-flood:<lines/s>, screenshot:timeout|error|denied,
                        image-budget, settings-nil:<rate>[:<key>], http-denied,
                        recording-nil-in-play, undo-destroyed, capture-png,
                        play-fail-late, error-and-closed,
                        pc-drop-unbound, pc-bind-fail[:<ctx>[:<n>]],
                        script-locked:<path>[:<reason>]
  --max-streams <n>     WebStreamClients open at once in this window, all
                        DataModels together (default 4)
  --from-doctor <file>  a "studio-bridge doctor --json" report from a real
                        Studio: each studio.* degradation turns on its
                        switch (plugin/README.md, "How doctor checks each
                        assumption"); the flags above add to it
  --run-mode-client=<true|false>
                        whether RunService:IsClient() is true in Run mode's
                        DataModel (default true; references disagree)
  --team-create         a Team Create place: CreateWebStreamClient raises in
                        a playtest's (Team Test's) DataModels
  --no-plugins-in-test  Studio's "Load User Plugins in Test Mode" is off: a
                        playtest's server and client DataModels run no user
                        plugin (contested default; plugin/README.md)
  --http-enabled        the game's HttpService.HttpEnabled is on (default off,
                        as in Studio): without it every HTTP request from a
                        playtest's server DataModel fails with "Http
                        requests are not enabled. Enable via game settings"
  --http-requests-per-minute <n>
                        a game server's HTTP budget (default 500, the
                        HttpService reference's); over it a request fails
                        with "Number of requests exceeded limit"
  --log-mirror          in Play, the client DataModel's LogService also
                        reports every line the server DataModel prints (a
                        live report; opt-in)
  --foreign-streams <n> WebStreamClients other plugins (Rojo, …) hold in
                        this Studio process, counted against --max-streams
                        (default 0)
  --stream-lifetime <s> seconds after which "Studio" drops each stream
                        (default 1800)
  --viewport <W>x<H>    the viewport a screenshot captures (default 1920x1080)
  --client-localhost    let the Play client DataModel open streams to
                        localhost (Studio does not)
  --no-plugin-connection-service
                        no PluginConnectionService (a Studio older than it)
  --setting <k>=<json>  a plugin setting, stored as StudioBridge<k>, e.g.
                        --setting LogCapacity=3000
  --settings-file <f>   persist plugin settings in <f> (JSON)
  --record-api <file>   on exit, write the Roblox APIs used and provided (JSON)
  --quiet               print nothing but errors
  --large-place         add a generated place for benchmarks under
                        Workspace.Large (101,000 instances, 5,000 scripts,
                        about 20 MB of source)
  -h, --help            this text

stdin commands (one per line):
  play | run | stop | pause | resume
                                   change the run mode
  undo | redo                      Ctrl+Z / Ctrl+Y in the edit DataModel
  editor-undo <path>               Ctrl+Z in that script's editor tab
  reload [edit|server|client]      Studio reloads the plugin in that DataModel
                                   (default edit): Unloading, then a new copy
  print <text> | warn <text> | error <text> | info <text>
                                   emit an Output line in every DataModel
  click <buttonId>                 click a plugin toolbar button
  type <widget>.<box> <text>       type into a plugin widget's TextBox and press
                                   Enter (e.g. type StudioBridgeSettings.Port 41000)
  drop                             drop every socket abruptly now
  stall <seconds>                  freeze every DataModel
  fault <spec> | faults-clear      add or clear faults
  api                              print the recorded API usage (JSON)
  quit                             exit cleanly`

let args
try {
  args = parseArgs({
    options: {
      port: { type: 'string' },
      context: { type: 'string' },
      play: { type: 'boolean' },
      run: { type: 'boolean' },
      instance: { type: 'string' },
      place: { type: 'string' },
      'place-id': { type: 'string' },
      'game-id': { type: 'string' },
      fixture: { type: 'string' },
      project: { type: 'string' },
      'config-dir': { type: 'string' },
      unpaired: { type: 'boolean' },
      'place-project': { type: 'string' },
      'signal-behavior': { type: 'string' },
      fault: { type: 'string', multiple: true },
      'max-streams': { type: 'string' },
      'foreign-streams': { type: 'string' },
      'no-plugins-in-test': { type: 'boolean' },
      'http-enabled': { type: 'boolean' },
      'log-mirror': { type: 'boolean' },
      'http-requests-per-minute': { type: 'string' },
      'team-create': { type: 'boolean' },
      'run-mode-client': { type: 'string' },
      'from-doctor': { type: 'string' },
      'stream-lifetime': { type: 'string' },
      'client-localhost': { type: 'boolean' },
      viewport: { type: 'string' },
      'no-plugin-connection-service': { type: 'boolean' },
      setting: { type: 'string', multiple: true },
      'settings-file': { type: 'string' },
      'record-api': { type: 'string' },
      quiet: { type: 'boolean' },
      'large-place': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values
} catch (err) {
  process.stderr.write(`${err.message}\n\n${USAGE}\n`)
  process.exit(2)
}
if (args.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}

function fail(message) {
  process.stderr.write(`studio emulator: ${message}\n`)
  process.exit(2)
}

const port = args.port === undefined ? undefined : Number(args.port)
if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) fail(`--port ${args.port} is not a port number`)
let contexts = ['edit']
if ([args.play, args.run, args.context].filter(Boolean).length > 1) fail('--play, --run and --context are exclusive')
if (args.play) contexts = ['edit', 'server', 'client']
else if (args.run) contexts = ['edit', 'server']
else if (args.context) {
  if (!['edit', 'server', 'client'].includes(args.context)) fail(`--context ${args.context}: want edit, server or client`)
  contexts = [args.context]
}
if (args.instance && !contexts.includes('edit')) {
  // The plugin takes a window's instanceId from the edit DataModel's first
  // GUID; a lone server or client derives "solo-<context>-<start>-<place>".
  fail(`--instance needs an edit DataModel: a lone ${contexts[0]} DataModel's plugin derives its own id (solo-${contexts[0]}-…) from the process start and place`)
}
const maxStreams = args['max-streams'] === undefined ? undefined : Number(args['max-streams'])
if (maxStreams !== undefined && !(Number.isInteger(maxStreams) && maxStreams >= 1)) fail(`--max-streams ${args['max-streams']}: want a whole number >= 1`)
const foreignStreams = args['foreign-streams'] === undefined ? undefined : Number(args['foreign-streams'])
if (foreignStreams !== undefined && !(Number.isInteger(foreignStreams) && foreignStreams >= 0)) fail(`--foreign-streams ${args['foreign-streams']}: want a whole number >= 0`)
if (args['run-mode-client'] !== undefined && !['true', 'false'].includes(args['run-mode-client'])) fail(`--run-mode-client ${args['run-mode-client']}: want true or false`)
const httpPerMinute = args['http-requests-per-minute'] === undefined ? undefined : Number(args['http-requests-per-minute'])
if (httpPerMinute !== undefined && !(Number.isInteger(httpPerMinute) && httpPerMinute >= 1)) fail(`--http-requests-per-minute ${args['http-requests-per-minute']}: want a whole number >= 1`)
const streamLifetime = args['stream-lifetime'] === undefined ? undefined : Number(args['stream-lifetime'])
if (streamLifetime !== undefined && !(streamLifetime > 0)) fail(`--stream-lifetime ${args['stream-lifetime']}: want seconds > 0`)
let viewport
if (args.viewport !== undefined) {
  const m = /^(\d+)x(\d+)$/.exec(args.viewport)
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1 || Number(m[1]) > 8192 || Number(m[2]) > 8192) fail(`--viewport ${args.viewport}: want <width>x<height>, e.g. 1920x1080 (1 to 8192 each)`)
  viewport = { width: Number(m[1]), height: Number(m[2]) }
}
const pluginSettings = {}
for (const s of args.setting || []) {
  const i = s.indexOf('=')
  if (i < 1) fail(`--setting ${s}: want key=json`)
  try {
    pluginSettings[s.slice(0, i)] = JSON.parse(s.slice(i + 1))
  } catch {
    fail(`--setting ${s}: the value is not JSON`)
  }
}

if (args.unpaired && args['config-dir'] !== undefined) fail('--unpaired and --config-dir are exclusive')
let pairing
if (!args.unpaired) {
  try {
    const dir = args['config-dir'] !== undefined ? path.resolve(args['config-dir']) : configDir()
    pairing = { key: pairingKey(resolveToken(dir)), port: port ?? DEFAULT_PORT }
  } catch (err) {
    fail(`pair the plugin: ${err.message}`)
  }
}

// --from-doctor: the report's switches, which the explicit flags add to
let fromDoctor = { faults: [], notReproduced: [] }
if (args['from-doctor'] !== undefined) {
  try {
    fromDoctor = readDoctorReport(args['from-doctor'])
  } catch (err) {
    fail(`--from-doctor ${args['from-doctor']}: ${err.message}`)
  }
  for (const key of fromDoctor.notReproduced) {
    process.stderr.write(`studio emulator: --from-doctor: ${key} is degraded in the report, but the emulator has no switch for it; not reproduced\n`)
  }
}

let window
try {
  window = new Window({
    port,
    pairing,
    instance: args.instance,
    place: args.place,
    placeId: args['place-id'] === undefined ? undefined : Number(args['place-id']),
    gameId: args['game-id'] === undefined ? undefined : Number(args['game-id']),
    fixture: args.fixture,
    project: args.project,
    placeProject: args['place-project'],
    signalBehavior: args['signal-behavior'],
    faults: [...fromDoctor.faults, ...(args.fault || [])],
    maxStreams,
    foreignStreams: foreignStreams ?? fromDoctor.foreignStreams,
    runModeClient: args['run-mode-client'] !== 'false' && fromDoctor.runModeClient !== false,
    teamCreate: args['team-create'] === true,
    noPluginsInTest: args['no-plugins-in-test'] === true || fromDoctor.noPluginsInTest === true,
    httpEnabled: args['http-enabled'] === true,
    logMirror: args['log-mirror'] === true,
    httpRequestsPerMinute: httpPerMinute,
    streamLifetime,
    viewport,
    clientLocalhost: args['client-localhost'] === true,
    pluginConnectionService: args['no-plugin-connection-service'] !== true && fromDoctor.pluginConnectionService !== false,
    pluginSettings,
    settingsFile: args['settings-file'],
    recordApi: args['record-api'],
    quiet: args.quiet,
    largePlace: args['large-place'] === true,
  })
} catch (err) {
  fail(err.message)
}

let exiting = false
async function exit(code) {
  if (exiting) return
  exiting = true
  const force = setTimeout(() => process.exit(code), 3000)
  force.unref()
  try {
    await window.shutdown()
  } finally {
    process.exit(code)
  }
}
shutdown = exit

if (args.run) window.runMode = true
await window.start(contexts)
process.stderr.write(`emulator: window ready (${contexts.join(', ')}) port=${port ?? 'plugin default'} ${pairing ? 'paired' : 'unpaired'}\n`)

const rl = createInterface({ input: process.stdin })
rl.on('line', async (line) => {
  const [cmd, ...rest] = line.trim().split(/\s+/)
  const arg = line.trim().slice(cmd.length).trim()
  try {
    switch (cmd) {
      case '':
        break
      case 'play':
        await window.play()
        break
      case 'run':
        await window.run()
        break
      case 'stop':
        await window.stopPlay()
        break
      case 'undo':
      case 'redo':
        process.stderr.write(`emulator: ${cmd} ${await window.history(cmd)}\n`)
        break
      case 'editor-undo':
        process.stderr.write(`emulator: ${cmd} ${await window.history(cmd, arg)}\n`)
        break
      case 'reload':
        await window.reloadPlugin(arg || 'edit')
        break
      case 'pause':
        await window.setRunState('Paused')
        break
      case 'resume':
        await window.setRunState('Running')
        break
      case 'print':
      case 'warn':
      case 'error':
      case 'info':
        for (const dm of window.models.values()) await dm.command(cmd, arg)
        break
      case 'click':
        for (const dm of window.models.values()) await dm.command('click', rest[0])
        break
      case 'type':
        for (const dm of window.models.values()) await dm.command('type', arg)
        break
      case 'drop':
        for (const dm of window.models.values()) dm.dropSockets()
        break
      case 'stall':
        for (const dm of window.models.values()) dm.stall(Number(rest[0]) || 1)
        break
      case 'fault':
        window.faults.add(arg)
        break
      case 'faults-clear':
        window.faults.clear()
        break
      case 'api':
        process.stdout.write(JSON.stringify(await window.apiUsage()) + '\n')
        break
      case 'quit':
        await exit(0)
        break
      default:
        process.stderr.write(`emulator: unknown command ${cmd}\n`)
    }
    process.stderr.write(`emulator: ok ${cmd}\n`)
  } catch (err) {
    process.stderr.write(`emulator: ${cmd} failed: ${err.message}\n`)
  }
})
rl.on('close', () => {
  // stdin closed (e.g. started with </dev/null): keep running until killed
})
