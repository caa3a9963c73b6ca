// A minimal bridge host in JavaScript, for the emulator's own tests: it
// speaks the host side of plugin protocol version 2 (protocol/PROTOCOL.md
// 12: hello/welcome per socket, attach/attached per session, every session
// frame with its sessionId) with full control over timing, rejects and
// heartbeats. It keeps no records: an attach that names an id keeps it,
// never resumed, as after a host restart. The Go end-to-end test
// (test/emulator/e2e_test.go) runs the real host instead.

import { once } from 'node:events'
import http from 'node:http'
import { WebSocketServer } from 'ws'
import { nonce as newNonce, proof } from '../../src/pairing.mjs'

// The pairing key MiniHosts hold by default, and the pairing the tests'
// windows are installed with (port 0: no installed port, so the plugin's
// port setting decides, as the tests that change it need).
export const TEST_KEY = Buffer.alloc(32, 7)
export const TEST_PAIRING = { key: TEST_KEY, port: 0 }

// The welcome of plugin protocol version 2 (protocol/PROTOCOL.md 12.3), the
// only version: a hello that does not offer it is rejected, as the Go host
// rejects it.
const WELCOME = {
  type: 'welcome',
  protocolVersion: 2,
  heartbeatIntervalMs: 5000,
  maxFrameBytes: 1 << 20,
  maxSessionFrameBytes: 983040,
  maxSessions: 16,
  maxRequestBytes: 16 << 20,
  resumeGraceMs: 10000,
  hostVersion: '0.0.0-test',
}

// One session attached on a socket (one DataModel). A re-attach (after a
// drop, or a move to another socket) is a new Session with the same id.
class Session {
  constructor(socket, attach, sessionId) {
    this.socket = socket
    this.hello = attach // the attach's fields: context, instanceId, previousSessionId, …
    this.sessionId = sessionId
    this.frames = [] // every frame of this session the plugin sent
    this.acks = []
    this.pending = new Map()
    this.events = []
    this.eventWaiters = []
    this.closed = false
  }

  get ws() {
    return this.socket.ws
  }

  // the socket's pings and pongs (the plugin pings per socket)
  get pings() {
    return this.socket.pings
  }

  get pongs() {
    return this.socket.pongs
  }

  end(why) {
    if (this.closed) return
    this.closed = true
    for (const p of this.pending.values()) p.reject(new Error(why))
    this.pending.clear()
  }
}

export class MiniHost {
  constructor({ reject = null, welcome = {}, pingMs = 0, key = TEST_KEY } = {}) {
    this.reject = reject
    this.key = key // the pairing key (PROTOCOL.md 12.3)
    this.welcomeExtra = welcome
    this.pingMs = pingMs
    this.sockets = []
    this.sessions = []
    this.waiters = []
    this.nextId = 1
    this.nextSession = 1
    this.hellos = []
    this.health = { status: 'ok', service: 'studio-bridge', version: '0.0.0-test', protocolVersion: 2 }
    this.healthRequests = 0
    this.server = http.createServer((req, res) => {
      if (req.url === '/health') {
        this.healthRequests += 1
        res.writeHead(this.health.status === 'ok' ? 200 : 503, { 'content-type': 'application/json' })
        res.end(JSON.stringify(this.health))
      } else {
        res.writeHead(404)
        res.end()
      }
    })
    this.wss = new WebSocketServer({ noServer: true })
    this.server.on('upgrade', (req, socket, head) => {
      if (req.url !== '/plugin') return socket.destroy()
      if (this.refuseUpgrade) {
        // answer the upgrade with an HTTP status, as the host's guard does
        this.refusedUpgrades = (this.refusedUpgrades || 0) + 1
        socket.end(`HTTP/1.1 ${this.refuseUpgrade} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
        return
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws))
    })
  }

  async listen(port = 0) {
    this.server.listen(port, '127.0.0.1')
    await once(this.server, 'listening')
    this.port = this.server.address().port
    return this.port
  }

  async close() {
    for (const s of this.sockets) s.ws.terminate()
    this.wss.close()
    this.server.closeAllConnections?.()
    await new Promise((r) => this.server.close(r))
  }

  accept(ws) {
    const socket = { ws, frames: [], sessions: new Map(), closed: false, pings: 0, pongs: [], hello: null }
    this.sockets.push(socket)
    ws.on('message', (data) => {
      let msg
      try {
        msg = JSON.parse(data.toString('utf8'))
      } catch {
        socket.frames.push({ type: '(unparseable)', raw: data.toString('utf8') })
        return
      }
      socket.frames.push(msg)
      socket.sessions.get(msg.sessionId)?.frames.push(msg)
      this.onFrame(socket, msg)
    })
    ws.on('close', () => {
      socket.closed = true
      clearInterval(socket.pingTimer)
      for (const s of socket.sessions.values()) s.end('socket closed')
    })
  }

  send(socket, frame) {
    socket.ws.send(JSON.stringify(frame))
  }

  onFrame(socket, msg) {
    // A silent host keeps the socket open but answers nothing after the
    // welcome (a hung host process).
    if (this.silent && msg.type !== 'hello') return
    const session = socket.sessions.get(msg.sessionId)
    if (socket.welcomed && !socket.paired) return this.onPair(socket, msg)
    switch (msg.type) {
      case 'hello':
        return this.onHello(socket, msg)
      case 'attach':
        return this.onAttach(socket, msg)
      case 'detach':
        if (session) {
          socket.sessions.delete(msg.sessionId)
          session.end('session detached')
        }
        break
      case 'ping':
        if (msg.sessionId === undefined) socket.pings += 1
        this.send(socket, { type: 'pong', ...(msg.sessionId ? { sessionId: msg.sessionId } : {}), t: msg.t })
        break
      case 'pong':
        socket.pongs.push(msg)
        break
      case 'ack':
        session?.acks.push(msg.id)
        break
      case 'progress': {
        const p = session?.pending.get(msg.id)
        if (p) p.progress.push(msg.payload)
        break
      }
      case 'chunk': {
        const p = session?.pending.get(msg.id)
        if (p) p.chunks.push(msg)
        break
      }
      case 'response': {
        const p = session?.pending.get(msg.id)
        if (!p) break
        session.pending.delete(msg.id)
        let payload = msg.payload
        if (msg.chunks > 0) {
          p.chunks.sort((a, b) => a.seq - b.seq)
          if (p.chunks.length !== msg.chunks) return p.reject(new Error(`announced ${msg.chunks} chunks, got ${p.chunks.length}`))
          payload = JSON.parse(p.chunks.map((c) => c.data).join(''))
        }
        p.resolve({ ok: msg.ok, payload, error: msg.error, progress: p.progress, chunks: p.chunks.length })
        break
      }
      case 'event': {
        if (!session) break
        session.events.push(msg)
        const ws = session.eventWaiters
        session.eventWaiters = []
        for (const w of ws) w(msg)
        break
      }
    }
  }

  // The socket's hello: version 2 is welcomed; anything else is rejected
  // (1008) as the Go host rejects it, naming install-plugin.
  onHello(socket, msg) {
    this.hellos.push(msg)
    socket.hello = msg
    const reject = this.reject ??
      (Array.isArray(msg.protocolVersions) && msg.protocolVersions.includes(2)
        ? null
        : {
            code: 'UNSUPPORTED_PROTOCOL',
            message: `studio-bridge host speaks plugin protocol version(s) [2] but the plugin offered ${JSON.stringify(msg.protocolVersions ?? [])}; update the plugin with \`studio-bridge install-plugin\``,
          })
    if (reject) {
      this.send(socket, { type: 'reject', ...reject })
      socket.ws.close(1008, 'rejected')
      return
    }
    if (typeof msg.nonce !== 'string') {
      // an unpaired plugin, refused as the Go host refuses it
      this.send(socket, { type: 'reject', code: 'UNAUTHORIZED', message: 'this Studio plugin is not paired with studio-bridge: run `studio-bridge install-plugin`' })
      socket.ws.close(1008, 'rejected')
      return
    }
    socket.nonce = newNonce()
    this.send(socket, { ...WELCOME, nonce: socket.nonce, proof: proof(this.key, 'host', socket.nonce, msg.nonce, msg.instanceId), ...this.welcomeExtra })
    socket.welcomed = true
    if (this.pingMs) {
      socket.pingTimer = setInterval(() => {
        if (!socket.closed) this.send(socket, { type: 'ping', t: Date.now() })
      }, this.pingMs)
    }
  }

  // The frame after the welcome must be a pair proving the key; anything
  // else is refused (1008), as the Go host refuses it.
  onPair(socket, msg) {
    const want = proof(this.key, 'plugin', socket.nonce, socket.hello.nonce, socket.hello.instanceId)
    if (msg.type !== 'pair' || msg.proof !== want) {
      this.pairRefusals = (this.pairRefusals ?? 0) + 1
      this.send(socket, { type: 'reject', code: 'UNAUTHORIZED', message: 'the plugin did not prove the pairing key: run `studio-bridge install-plugin`' })
      socket.ws.close(1008, 'rejected')
      return
    }
    socket.paired = true
  }

  // An attach: a new session, or the id it names kept (a MiniHost has no
  // records to resume, so `resumed` is false, as after a host restart).
  onAttach(socket, msg) {
    if (!socket.welcomed) return
    if (typeof msg.ref !== 'string' || msg.instanceId !== socket.hello.instanceId) {
      this.send(socket, { type: 'reject', ref: msg.ref, code: 'INVALID_ATTACH', message: 'attach needs a ref and the hello\'s instanceId' })
      return
    }
    const sessionId = msg.previousSessionId || `s-${this.nextSession++}`
    for (const other of this.sessions) {
      if (other.sessionId === sessionId && !other.closed) {
        // another socket (or this one) held it: it moves here
        other.socket.sessions.delete(sessionId)
        if (other.socket !== socket && !other.socket.closed) this.send(other.socket, { type: 'replaced', sessionId, reason: 'attached elsewhere' })
        other.end('session moved')
      }
    }
    const session = new Session(socket, msg, sessionId)
    socket.sessions.set(sessionId, session)
    this.sessions.push(session)
    this.send(socket, { type: 'attached', ref: msg.ref, sessionId, resumeSecret: `secret-${sessionId}-${this.sessions.length}`, resumed: false })
    const waiters = this.waiters
    this.waiters = []
    for (const w of waiters) w(session)
  }

  // Waits for the next session to be attached.
  waitSession(timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no plugin session within ' + timeoutMs + ' ms')), timeoutMs)
      this.waiters.push((s) => {
        clearTimeout(t)
        resolve(s)
      })
    })
  }

  // Waits until a session with `context` is live.
  async sessionFor(context, timeoutMs = 10000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const s = this.sessions.find((x) => !x.closed && x.hello.context === context)
      if (s) return s
      if (Date.now() > deadline) throw new Error(`no ${context} session`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  // timeoutMs guards against a hang; it is no speed bound (a loaded machine
  // takes tens of seconds for a screenshot).
  call(session, action, payload = {}, { timeoutMs = 60000 } = {}) {
    const id = String(this.nextId++)
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        session.pending.delete(id)
        reject(new Error(`${action} timed out`))
      }, timeoutMs)
      session.pending.set(id, {
        progress: [],
        chunks: [],
        resolve: (v) => {
          clearTimeout(t)
          resolve(v)
        },
        reject: (e) => {
          clearTimeout(t)
          reject(e)
        },
      })
      session.ws.send(JSON.stringify({ type: 'request', sessionId: session.sessionId, id, action, payload }))
      session.lastRequestId = id
    })
  }

  cancel(session, id) {
    session.ws.send(JSON.stringify({ type: 'cancel', sessionId: session.sessionId, id }))
  }

  waitEvent(session, predicate, timeoutMs = 5000) {
    const found = session.events.find(predicate)
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('event not seen')), timeoutMs)
      const check = (ev) => {
        if (predicate(ev)) {
          clearTimeout(t)
          resolve(ev)
        } else session.eventWaiters.push(check)
      }
      session.eventWaiters.push(check)
    })
  }
}

export async function until(fn, timeoutMs = 5000, stepMs = 20) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, stepMs))
  }
}

// startWindow starts a MiniHost (new MiniHost(hostOptions)) and, on its
// port, the window that makeWindow(port) returns as { window, ... }; starts
// the window's DataModels `contexts` and waits (at most waitMs) until each
// has an open session. It returns the host, what makeWindow returned, the
// first open session, and stop(), which shuts the window and the host down.
export async function startWindow(makeWindow, { contexts = ['edit'], waitMs = 10000, hostOptions } = {}) {
  const host = new MiniHost(hostOptions)
  const port = await host.listen()
  const made = makeWindow(port)
  await made.window.start(contexts)
  await until(() => host.sessions.filter((s) => !s.closed).length === contexts.length, waitMs)
  const stop = async () => {
    await made.window.shutdown()
    await host.close()
  }
  return { host, ...made, session: host.sessions.find((s) => !s.closed), stop }
}
