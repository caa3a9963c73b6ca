// A minimal bridge host in JavaScript, for the emulator's own tests: it
// speaks the plugin side of the wire protocol (protocol/PROTOCOL.md) with
// full control over timing, rejects and heartbeats. The Go end-to-end test
// (test/emulator/e2e_test.go) runs the real host instead.

import { once } from 'node:events'
import http from 'node:http'
import { WebSocketServer } from 'ws'

export class MiniHost {
  constructor({ reject = null, welcome = {}, pingMs = 0 } = {}) {
    this.reject = reject
    this.welcomeExtra = welcome
    this.pingMs = pingMs
    this.sessions = []
    this.waiters = []
    this.nextId = 1
    this.hellos = []
    this.health = { status: 'ok', service: 'studio-bridge', version: '0.0.0-test', protocolVersion: 1 }
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
    for (const s of this.sessions) s.ws.terminate()
    this.wss.close()
    this.server.closeAllConnections?.()
    await new Promise((r) => this.server.close(r))
  }

  accept(ws) {
    const session = { ws, frames: [], pending: new Map(), events: [], eventWaiters: [], closed: false, pings: 0, pongs: [] }
    ws.on('message', (data) => {
      let msg
      try {
        msg = JSON.parse(data.toString('utf8'))
      } catch {
        session.frames.push({ type: '(unparseable)', raw: data.toString('utf8') })
        return
      }
      session.frames.push(msg)
      this.onFrame(session, msg)
    })
    ws.on('close', () => {
      session.closed = true
      for (const p of session.pending.values()) p.reject(new Error('socket closed'))
      session.pending.clear()
    })
  }

  onFrame(session, msg) {
    // A silent host keeps the socket open but answers nothing after the
    // welcome (a hung host process).
    if (this.silent && msg.type !== 'hello') return
    switch (msg.type) {
      case 'hello': {
        this.hellos.push(msg)
        session.hello = msg
        if (this.reject) {
          session.ws.send(JSON.stringify({ type: 'reject', ...this.reject }))
          session.ws.close(1008, 'rejected')
          return
        }
        session.sessionId = msg.previousSessionId || `s-${this.sessions.length + 1}`
        session.ws.send(
          JSON.stringify({
            type: 'welcome',
            protocolVersion: 1,
            sessionId: session.sessionId,
            heartbeatIntervalMs: 5000,
            maxFrameBytes: 1 << 20,
            hostVersion: '0.0.0-test',
            ...this.welcomeExtra,
          }),
        )
        this.sessions.push(session)
        if (this.pingMs) {
          session.pingTimer = setInterval(() => {
            if (session.closed) return clearInterval(session.pingTimer)
            session.ws.send(JSON.stringify({ type: 'ping', t: Date.now() }))
          }, this.pingMs)
        }
        const waiters = this.waiters
        this.waiters = []
        for (const w of waiters) w(session)
        break
      }
      case 'ping':
        session.pings += 1
        session.ws.send(JSON.stringify({ type: 'pong', t: msg.t }))
        break
      case 'pong':
        session.pongs.push(msg)
        break
      case 'progress': {
        const p = session.pending.get(msg.id)
        if (p) p.progress.push(msg.payload)
        break
      }
      case 'chunk': {
        const p = session.pending.get(msg.id)
        if (p) p.chunks.push(msg)
        break
      }
      case 'response': {
        const p = session.pending.get(msg.id)
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
        session.events.push(msg)
        const ws = session.eventWaiters
        session.eventWaiters = []
        for (const w of ws) w(msg)
        break
      }
    }
  }

  // Waits for the next session to complete its handshake (or returns the
  // newest one with `existing`).
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

  call(session, action, payload = {}, { timeoutMs = 15000 } = {}) {
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
      session.ws.send(JSON.stringify({ type: 'request', id, action, payload }))
      session.lastRequestId = id
    })
  }

  cancel(session, id) {
    session.ws.send(JSON.stringify({ type: 'cancel', id }))
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
