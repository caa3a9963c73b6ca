// One emulated DataModel: a Luau VM (luau-web, its own wasm instance) running
// the runtime (runtime/*.luau) and the plugin, driven by a pump that delivers
// host events (socket and HTTP completions) and steps the task scheduler.

import { readFileSync } from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { fileURLToPath, pathToFileURL } from 'node:url'
import WebSocket from 'ws'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const RUNTIME_FILES = ['core', 'json', 'datatypes', 'instances', 'services', 'scripteditor', 'pluginconnection', 'capture', 'testkit', 'boot']
const runtimeSources = Object.fromEntries(
  RUNTIME_FILES.map((name) => [name, readFileSync(path.join(here, '..', 'runtime', `${name}.luau`), 'utf8')]),
)
const luauEntry = pathToFileURL(require.resolve('luau-web')).href

let vmCounter = 0

// The wasm memory each DataModel's Luau VM gets. luau-web is built with a
// fixed, non-growable memory of 274 pages (~17 MiB, ~16 MiB of it heap), far
// below what Studio's Luau has. Luau's GC lets the heap reach about twice the
// live data before a cycle ends, so that held about 7 MiB of live data: less
// than the plugin legitimately keeps. An exec keeps up to 10,000 lines or
// 4 MiB of output, and with deferred signals (Studio's default) every line a
// non-yielding script prints is still queued for MessageOut when it ends; one
// exec printing 20,000 lines peaks at about 15 MiB of Luau heap even with the
// runtime's queue kept compact (core.luau). So each VM gets a larger fixed
// memory; pages cost nothing until Luau uses them.
// chunked splits a long string into parts luau-web can pass: it copies each
// string argument onto the VM's 1 MiB C stack (emscripten's STACK_SIZE), so
// one larger string (a fixture holding Jest-Lua's 2 MB of sources)
// overflows it ("memory access out of bounds").
export function chunked(s, size = 256 * 1024) {
  const parts = []
  for (let i = 0; i < s.length; ) {
    let end = Math.min(i + size, s.length)
    // never between the halves of a surrogate pair (each part becomes UTF-8)
    if (end < s.length && /[\uD800-\uDBFF]/.test(s[end - 1])) end--
    parts.push(s.slice(i, end))
    i = end
  }
  return parts.length ? parts : ['']
}

export const HEAP_BYTES = 256 * 1024 * 1024
const WASM_PAGE = 65536

let luauModule // the patched wasm, compiled once (a promise)

// luau-web's wasm (embedded, base64, in the glue file its index.js loads:
// the same JSPI/Asyncify choice) with its one memory's initial and maximum
// size raised to `bytes`.
function luauWasmWithMemory(bytes) {
  const jspi = 'Suspending' in WebAssembly && 'promising' in WebAssembly
  const glue = readFileSync(
    path.join(path.dirname(fileURLToPath(luauEntry)), 'lib', jspi ? 'Luau.Web.JSPI.js' : 'Luau.Web.Asyncify.js'),
    'utf8',
  )
  const m = glue.match(/base64Decode\("([A-Za-z0-9+/=]+)"\)/)
  if (!m) throw new Error('luau-web: cannot find the embedded wasm')
  const wasm = Buffer.from(m[1], 'base64')
  const pages = Math.ceil(bytes / WASM_PAGE)
  const readLeb = (buf, pos) => {
    let value = 0
    let shift = 0
    let byte
    do {
      byte = buf[pos++]
      value += (byte & 0x7f) * 2 ** shift
      shift += 7
    } while (byte & 0x80)
    return [value, pos]
  }
  const leb = (n) => {
    const out = []
    do {
      let byte = n & 0x7f
      n = Math.floor(n / 128)
      if (n) byte |= 0x80
      out.push(byte)
    } while (n)
    return Buffer.from(out)
  }
  let pos = 8 // magic and version
  while (pos < wasm.length) {
    const id = wasm[pos]
    const [size, body] = readLeb(wasm, pos + 1)
    if (id === 5) {
      let [count, p] = readLeb(wasm, body)
      if (count !== 1) throw new Error(`luau-web: ${count} memories`)
      const flags = wasm[p++]
      if (flags & ~1) throw new Error(`luau-web: memory flags ${flags}`)
      let initial
      ;[initial, p] = readLeb(wasm, p)
      if (flags & 1) p = readLeb(wasm, p)[1]
      if (p !== body + size) throw new Error('luau-web: unexpected memory section')
      if (initial >= pages) return wasm
      const section = Buffer.concat([leb(1), Buffer.from([1]), leb(pages), leb(pages)])
      return Buffer.concat([wasm.subarray(0, pos), Buffer.from([5]), leb(section.length), section, wasm.subarray(body + size)])
    }
    pos = body + size
  }
  throw new Error('luau-web: no memory section')
}

// Each DataModel gets its own luau-web module instance, hence its own wasm
// memory (HEAP_BYTES, see above) and its own Asyncify state.
async function freshLuau() {
  vmCounter += 1
  const mod = await import(`${luauEntry}?datamodel=${vmCounter}`)
  luauModule ??= WebAssembly.compile(luauWasmWithMemory(HEAP_BYTES))
  const compiled = await luauModule
  // Emscripten's Module.instantiateWasm hook (luau-web passes this object
  // as its Module): instantiate the patched wasm instead of the embedded one.
  mod.InternalLuauWasmModule.instantiateWasm = (imports, receive) => {
    WebAssembly.instantiate(compiled, imports).then(
      (instance) => receive(instance, compiled),
      (err) =>
        process.nextTick(() => {
          throw err
        }),
    )
    return {}
  }
  return mod
}

function isLoopbackUrl(url) {
  try {
    const host = new URL(url).hostname
    return host === 'localhost' || host === '[::1]' || host === '::1' || host.startsWith('127.')
  } catch {
    return false
  }
}

export class DataModel {
  constructor(window, context) {
    this.window = window
    this.context = context
    this.queue = []
    this.wake = null
    this.stopped = false
    this.stalledUntil = 0
    this.sockets = new Map()
    this.nextSocketId = 1
    this.nextHttpId = 1
    // what the DataModel's HttpService did (tests observe reconnection pace)
    this.netAttempts = { http: 0, ws: 0 }
    // the ports this DataModel's requests and streams went to, with how
    // many each: a test can tell which host the plugin looked for
    this.portsReached = new Map()
    this.startedAt = performance.now()
    this.busy = Promise.resolve()
    this.pcsId = randomUUID() // PluginConnection.TargetId of this DataModel
  }

  log(...args) {
    this.window.log(`[${this.context}]`, ...args)
  }

  hostApi() {
    const w = this.window
    return {
      output: (ctx, messageType, message) => w.onOutput(this.context, messageType, message),
      // options.clock() injects the wall clock (the transcript replays: log
      // timestamps come from it)
      wallMillis: () => (w.options.clock ? w.options.clock() : Date.now()),
      elapsed: () => (performance.now() - w.startedAt) / 1000,
      guid: () => w.nextGuid(this.context),
      classInfo: (name) => {
        const d = w.classDb.describe(name)
        return d ? JSON.stringify(d) : undefined
      },
      enumItems: (name) => {
        const items = w.classDb.enums.get(name)
        if (!items) return undefined
        return [...items].map(([k, v]) => `${k}=${v}`).join(';')
      },
      compile: (source, chunkname) => this.luau.loadstring(source, chunkname, false),
      httpRequest: (ctx, method, url, headersJson, body) => this.httpRequest(method, url, headersJson, body),
      wsOpen: (ctx, url) => this.wsOpen(url),
      wsSend: (ctx, id, data) => this.wsSend(id, data),
      wsClose: (ctx, id) => this.wsClose(id),
      wsRefuse: () => w.streamRefusal(this.context),
      httpDenied: () => w.faults.has('http-denied'),
      pcsSend: (ctx, targetId, message) => w.pcsSend(this, targetId, message),
      settingsGet: (key) => w.getSetting(key),
      settingsSet: (key, json) => w.setSetting(key, json),
      fault: (ctx, name) => w.faults.value(name, this.context),
      ui: (ctx, kind, id, state) => w.onUi(this.context, kind, id, state),
      testStart: (mode, argsJson) => w.studioTest.start(mode, argsJson),
      testEnd: (valueJson) => w.studioTest.end(valueJson),
      testArgs: () => w.studioTest.argsJson,
      testState: () => w.studioTest.state(),
      // an Open Cloud task's end (runtime/boot.luau, task-run)
      taskDone: (ok, text) => w.options.onTaskDone?.(this.context, ok, text),
    }
  }

  async start({ config, fixture, pluginTree }) {
    const { LuauState } = await freshLuau()
    this.luau = await LuauState.createAsync({ __host: this.hostApi() })
    const chunks = RUNTIME_FILES.map((name) => this.luau.loadstring(runtimeSources[name], `=runtime/${name}`, true))
    const bootstrap = this.luau.loadstring(
      `local core, json, datatypes, instances, services, scripteditor, pluginconnection, capture, testkit, boot, configJson, pluginJson = ...
      local rt = { host = __host, globals = {} }
      core()(rt)
      json()(rt)
      datatypes()(rt)
      instances()(rt)
      services()(rt)
      scripteditor()(rt)
      pluginconnection()(rt)
      capture()(rt)
      testkit()(rt)
      -- the fixture's JSON comes last, in parts (chunked)
      local fixtureJson = table.concat({ select(13, ...) })
      return boot()(rt, configJson, fixtureJson, pluginJson)`,
      '=runtime/bootstrap',
      true,
    )
    const [step, deliver, command] = await bootstrap(
      ...chunks,
      JSON.stringify(config),
      pluginTree ? JSON.stringify(pluginTree) : undefined,
      ...chunked(JSON.stringify(fixture)),
    )
    this.step = step
    this.deliverFn = deliver
    this.commandFn = command
    this.pumpDone = this.pump()
  }

  now() {
    return (performance.now() - this.startedAt) / 1000
  }

  // Serialises every call into the VM.
  enter(fn) {
    const p = this.busy.then(fn)
    this.busy = p.catch(() => {})
    return p
  }

  push(kind, id, a, b, c) {
    this.queue.push([kind, id, a, b, c])
    this.poke()
  }

  poke() {
    if (this.wake) {
      const w = this.wake
      this.wake = null
      w()
    }
  }

  async pump() {
    while (!this.stopped) {
      const stallLeft = this.stalledUntil - performance.now()
      if (stallLeft > 0) {
        await new Promise((r) => setTimeout(r, stallLeft))
        continue
      }
      let next
      try {
        next = await this.enter(async () => {
          const events = this.queue.splice(0)
          for (const [kind, id, a, b, c] of events) await this.deliverFn(kind, id, a, b, c)
          const [n] = await this.step(this.now())
          return n
        })
      } catch (err) {
        const text = String(err?.stack || err)
        const hint = /OOM|enlarge memory|out of bounds/.test(text)
          ? ` (each DataModel's Luau VM has a fixed ${HEAP_BYTES / 1048576} MiB memory: a fixture, screenshot or log buffer this large does not fit)`
          : ''
        this.window.fatal(`[${this.context}] the Luau VM failed${hint}: ${text}`)
        return
      }
      if (this.stopped) return
      if (this.queue.length > 0 || next === 0) {
        await new Promise((r) => setImmediate(r))
        continue
      }
      const waitMs = next < 0 ? 1000 : Math.max(1, Math.min(next * 1000, 1000))
      await new Promise((resolve) => {
        const t = setTimeout(() => {
          this.wake = null
          resolve()
        }, waitMs)
        this.wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
    }
  }

  async command(name, arg) {
    const [result] = await this.enter(() => this.commandFn(name, arg))
    this.poke()
    return result
  }

  stall(seconds) {
    this.stalledUntil = Math.max(this.stalledUntil, performance.now() + seconds * 1000)
    this.log(`stalling for ${seconds}s (fault)`)
  }

  // --- WebSockets ---------------------------------------------------------

  // A stream holds one of the window's slots (--max-streams) from
  // CreateWebStreamClient until it is closed or fails.
  releaseStream(entry) {
    if (entry.released) return
    entry.released = true
    clearTimeout(entry.lifetimeTimer)
    this.window.openStreams -= 1
  }

  notePort(url) {
    let port = ''
    try {
      port = new URL(url).port
    } catch {
      port = '(no URL)'
    }
    this.portsReached.set(port, (this.portsReached.get(port) ?? 0) + 1)
  }

  wsOpen(url) {
    const id = this.nextSocketId++
    this.netAttempts.ws += 1
    this.notePort(url)
    this.window.openStreams += 1
    if (this.context === 'client' && !this.window.options.clientLocalhost && isLoopbackUrl(url)) {
      // A Play client DataModel cannot reach localhost (README, "Studio's
      // limits"): the stream fails as a refused connection does.
      const entry = { ws: { terminate() {}, close() {}, readyState: WebSocket.CLOSED }, errored: true, released: false }
      this.sockets.set(id, entry)
      setTimeout(() => {
        this.sockets.delete(id)
        this.releaseStream(entry)
        this.push('ws-error', id, 0, 'HttpError: ConnectFail (a Play client DataModel cannot connect to localhost)')
      }, 20).unref()
      return id
    }
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 10000 })
    const entry = { ws, errored: false, released: false }
    this.sockets.set(id, entry)
    // Studio ends every stream after a while (--stream-lifetime), abruptly
    entry.lifetimeTimer = setTimeout(() => {
      this.log(`closing stream ${id}: its lifetime of ${this.window.streamLifetime}s is over (--stream-lifetime)`)
      ws.terminate()
    }, this.window.streamLifetime * 1000)
    entry.lifetimeTimer.unref()
    ws.on('open', () => this.push('ws-open', id, 101, ''))
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? Buffer.from(data).toString('latin1') : data.toString('utf8')
      this.window.faults.onIncoming(this, id, text)
      this.push('ws-message', id, text)
    })
    ws.on('unexpected-response', (req, res) => {
      entry.errored = true
      this.push('ws-error', id, res.statusCode, `WebSocket upgrade refused: HTTP ${res.statusCode}`)
      ws.terminate()
    })
    ws.on('error', (err) => {
      if (!entry.errored) {
        entry.errored = true
        this.push('ws-error', id, 0, err.message)
      }
    })
    ws.on('close', (code, reason) => {
      this.sockets.delete(id)
      this.releaseStream(entry)
      if (!entry.errored) this.push('ws-close', id, code, reason.toString())
    })
    return id
  }

  wsSend(id, data) {
    const entry = this.sockets.get(id)
    if (!entry || entry.ws.readyState !== WebSocket.OPEN) return
    if (this.window.faults.has('close-drops-sends')) {
      // Send hands the frame over later (the next turn); a Close before
      // then loses it
      entry.pending ??= []
      entry.pending.push(data)
      if (entry.pending.length === 1) {
        setImmediate(() => {
          const frames = entry.pending || []
          entry.pending = undefined
          if (entry.ws.readyState === WebSocket.OPEN) for (const f of frames) entry.ws.send(f)
        })
      }
      return
    }
    entry.ws.send(data)
  }

  wsClose(id) {
    const entry = this.sockets.get(id)
    if (entry) {
      entry.errored = true // the runtime already reported the close
      this.releaseStream(entry)
      if (entry.pending) {
        this.log(`closing stream ${id}: ${entry.pending.length} frame(s) sent just before Close are lost (--fault close-drops-sends)`)
        entry.pending = undefined
      }
      entry.ws.close(1000)
      setTimeout(() => entry.ws.terminate(), 2000).unref()
    }
  }

  // Drops every socket abruptly (a network failure, not a close).
  dropSockets() {
    for (const entry of this.sockets.values()) entry.ws.terminate()
  }

  // --- HTTP (node:http, not fetch: fetch adds browser Sec-Fetch-* headers,
  // which Studio's HttpService does not send) --------------------------------

  httpRequest(method, url, headersJson, body) {
    const id = this.nextHttpId++
    this.netAttempts.http += 1
    this.notePort(url)
    if (this.window.faults.has('http-denied')) {
      // the user said no to the permission prompt: no request leaves Studio
      setTimeout(() => this.push('http', id, 0, '', 'Http requests are not allowed: the user denied this plugin permission (emulated fault http-denied)'), 5).unref()
      return id
    }
    let headers = {}
    try {
      headers = JSON.parse(headersJson || '{}')
      if (Array.isArray(headers)) headers = {}
    } catch {}
    const req = http.request(url, { method, headers, timeout: 10000 }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => this.push('http', id, res.statusCode, Buffer.concat(chunks).toString('utf8'), res.statusMessage))
    })
    req.on('timeout', () => req.destroy(new Error('Timedout')))
    req.on('error', (err) => {
      const reason = err.code === 'ECONNREFUSED' ? 'ConnectFail' : err.message === 'Timedout' ? 'Timedout' : 'ConnectFail'
      this.push('http', id, 0, '', reason)
    })
    if (body && method !== 'GET') req.write(body)
    req.end()
    return id
  }

  async stop() {
    if (this.stopped) return
    try {
      await this.command('unload')
      // let Unloading handlers run
      await new Promise((r) => setTimeout(r, 50))
    } catch {}
    this.stopped = true
    this.poke()
    for (const entry of this.sockets.values()) entry.ws.terminate()
    await this.busy.catch(() => {})
  }
}
